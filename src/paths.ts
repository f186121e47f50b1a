import { isAbsolute, relative, sep } from "node:path";

/**
 * Whether `path` is `dir` or lies beneath it. Both are absolute; `.` and `..` in either are
 * resolved first. A name that merely starts with two dots (`..notes`) is inside.
 */
export function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
