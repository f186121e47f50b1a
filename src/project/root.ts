import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

/** The directory holding .git above (or at) cwd, else cwd itself. */
export function projectRoot(cwd: string): string {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, ".git"))) return dir;
    const parent = resolve(dir, "..");
    if (parent === dir) return resolve(cwd);
    dir = parent;
  }
}
