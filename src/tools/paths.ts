import { lstat } from "node:fs/promises";
import { homedir } from "../home.ts";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { isInside } from "../paths.ts";

/** Resolves a path the model gave against the working directory; `~` and `~/x` mean the home directory. */
export function resolvePath(input: string, cwd: string): string {
  if (input === "~") return homedir();
  if (input.startsWith("~/")) return resolve(homedir(), input.slice(2));
  return isAbsolute(input) ? resolve(input) : resolve(cwd, input);
}


/** A path relative to `base` with forward slashes, or `.` for `base` itself. */
export function relativePosix(path: string, base: string): string {
  const rel = relative(base, path);
  if (rel === "") return ".";
  return sep === "/" ? rel : rel.split(sep).join("/");
}

/** How a path is shown to people and the model: relative to `base` when inside it, else absolute. */
export function displayPath(path: string, base: string): string {
  return isInside(path, base) ? relativePosix(path, base) : path;
}

/**
 * Orders relative paths as a sorted depth-first walk would (component by component), so that
 * `a/b` sorts with `a` and before `a.txt`: ripgrep's `--sort path` order.
 */
export function comparePaths(a: string, b: string): number {
  const pa = a.split("/");
  const pb = b.split("/");
  const n = Math.min(pa.length, pb.length);
  for (let i = 0; i < n; i++) {
    const x = pa[i] ?? "";
    const y = pb[i] ?? "";
    if (x !== y) return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}

/**
 * Found files with the most recently changed first (a link's own time, not its target's), ties in
 * path order; one that cannot be read counts as oldest.
 */
export async function newestFirst<T>(found: readonly T[], pathOf: (item: T) => string): Promise<T[]> {
  const times = await Promise.all(found.map((item) => lstat(pathOf(item)).then((s) => s.mtimeMs, () => 0)));
  return found
    .map((item, i) => ({ item, path: pathOf(item), time: times[i] ?? 0 }))
    .sort((a, b) => b.time - a.time || comparePaths(a.path, b.path))
    .map((entry) => entry.item);
}
