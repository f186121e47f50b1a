import { realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/**
 * Where a path really leads: its deepest existing ancestor with symlinks resolved, and the rest
 * (not there yet) appended. A path that cannot be resolved at all is returned resolved.
 */
export function realPath(path: string): string {
  let existing = resolve(path);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(existing), ...rest.reverse());
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return resolve(path);
      rest.push(basename(existing));
      existing = parent;
    }
  }
}
