import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** The path with its symlinks resolved by the system (realpath), or as given where that fails. */
export function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Where a path really leads, as the kernel walks it (see walkPath): symlinks followed, a dangling
 * last link too, parts not there yet appended. A path whose links loop is returned resolved.
 */
export function realPath(path: string): string {
  // Not resolve()d first: that would fold `link/..` on paper, where the kernel walks the link.
  const absolute = isAbsolute(path) ? path : resolve(path);
  return walkPath("/", absolute) ?? resolve(absolute);
}

/** Symlinks followed in one walk before it gives up, as the kernel does (ELOOP). */
const MAX_LINKS = 40;

/**
 * Where `written` leads from the directory `from`, as the kernel walks it: one component at a
 * time, each symlink followed where it stands, so `link/..` is the parent of the link's target
 * and not the directory holding the link; the last component too, even when its target does not
 * exist yet (a write through a dangling link creates the target). Components that do not exist
 * are taken as written. Null when the links loop.
 */
export function walkPath(from: string, written: string): string | null {
  let links = 0;
  const walk = (start: string, path: string): string | null => {
    let current = isAbsolute(path) ? "/" : start;
    for (const part of path.split("/")) {
      if (part === "" || part === ".") continue;
      if (part === "..") {
        current = dirname(current);
        continue;
      }
      const next = join(current, part);
      const target = linkTarget(next);
      if (target === null) {
        current = next;
        continue;
      }
      links++;
      if (links > MAX_LINKS) return null;
      const reached = walk(current, target);
      if (reached === null) return null;
      current = reached;
    }
    return current;
  };
  const start = walk("/", from);
  return start === null ? null : walk(start, written);
}

function linkTarget(path: string): string | null {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : null;
  } catch {
    return null;
  }
}

