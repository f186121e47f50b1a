import { realpath, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { errorCode } from "../errors.ts";
import { defaultLister, type FileLister, listFiles } from "../project/list-files.ts";
import { isProtected, judgeFound, pathGuard, type ProtectedPaths, protectedPaths, protectionJudge } from "../project/protected.ts";

/** What `lembas library add PATH…` names: the files to read (absolute, real, each once), and the paths it could not take. */
export type Discovered = { files: string[]; failures: string[] };

/**
 * The files under each path: a file itself (even an ignored one: it was named), a directory's
 * files recursively as ripgrep lists them (.gitignore, .ignore and hidden rules honoured, `.git`
 * left out). Protected paths (env files, private keys, `.ssh`, `rules`' own) are never taken:
 * the library's passages go to the model unasked, as grep's results do, and grep leaves them out
 * too. A path that is missing, cannot be read or is protected is a failure sentence; the rest go on.
 */
export async function discoverFiles(
  paths: readonly string[],
  cwd: string,
  lister: FileLister = defaultLister(),
  rules: ProtectedPaths = protectedPaths([], []),
): Promise<Discovered> {
  const seen = new Set<string>();
  const files: string[] = [];
  const failures: string[] = [];
  const take = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    files.push(file);
  };
  for (const path of paths) {
    const abs = resolve(cwd, path);
    let real: string;
    try {
      real = await realpath(abs);
      // Judged by every directory above it too: `~/.ssh/config` named from inside ~/.ssh is still in .ssh.
      if ([abs, real].some((p) => isProtected(p, "/", rules) || isProtected(p, cwd, rules))) {
        failures.push(`${path} is a protected path (a secret, or git's own files): the library does not take it`);
        continue;
      }
      const info = await stat(real);
      if (info.isFile()) {
        take(real);
        continue;
      }
      if (!info.isDirectory()) {
        failures.push(`${path} is neither a file nor a directory`);
        continue;
      }
    } catch (error) {
      failures.push(cannotRead(path, error));
      continue;
    }
    try {
      const judge = judgeFound(real, real, protectionJudge(real, rules));
      const listed = await listFiles(real, lister, pathGuard((file) => judge(file) !== null));
      for (const rel of listed.sort()) take(join(real, rel));
    } catch (error) {
      failures.push(cannotRead(path, error));
    }
  }
  return { files, failures };
}

function cannotRead(path: string, error: unknown): string {
  const code = errorCode(error);
  if (code === "ENOENT") return `${path} does not exist`;
  if (code === "EACCES" || code === "EPERM") return `${path} cannot be read: permission denied`;
  return `${path} cannot be read: ${error instanceof Error ? error.message : String(error)}`;
}
