import { basename, relative, sep } from "node:path";
import { isInside } from "../paths.ts";

/**
 * Paths no tool touches without asking, whatever the mode: git's internals, env files, private
 * keys, and lembas's own config and state. Patterns are globs matched against the path relative to
 * the project root, and against the file's name alone.
 */
export const BUILTIN_PROTECTED = [
  ".git/**",
  "**/.git/**",
  ".env",
  ".env.*",
  "**/.env",
  "**/.env.*",
  "*.pem",
  "*.key",
  "id_rsa",
  "id_rsa*",
  "id_ed25519*",
  "id_ecdsa*",
  "id_dsa*",
  "**/.ssh/**",
  "*.p12",
  "*.pfx",
] as const;

export type ProtectedPaths = { globs: Bun.Glob[]; dirs: string[] };

/** The built-in list plus config.yaml's `protected:`, and the config and state dirs. */
export function protectedPaths(extra: readonly string[], dirs: readonly string[]): ProtectedPaths {
  return { globs: [...BUILTIN_PROTECTED, ...extra].map((p) => new Bun.Glob(p)), dirs: [...dirs] };
}

/** Whether an absolute path is protected, judged relative to the project root. */
export function isProtected(path: string, root: string, rules: ProtectedPaths): boolean {
  if (rules.dirs.some((dir) => isInside(path, dir))) return true;
  const rel = relative(root, path).split(sep).join("/");
  const name = basename(path);
  return rules.globs.some((glob) => glob.match(rel) || glob.match(name));
}
