import { resolve } from "node:path";
import { startGitStatus } from "../engine/git-status.ts";
import { projectRoot } from "../project/root.ts";
import { realOr } from "../real-path.ts";

/**
 * What `lembas run` sets going before its modules load, from its words alone: the project's git
 * status (its system prompt shows it, so the first model request waits on it), in the directory
 * `--cwd` names or the current one. git runs while the rest of the program loads; a session that
 * turns out to live elsewhere (`--session` of another project) reads its own.
 */
export function startRunEarly(argv: readonly string[]): void {
  const words = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  // A prompt typed at stdin may take minutes: the status is the session's start's, read after it.
  if (argv.includes("-")) return;
  let cwd: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? "";
    if (word === "--cwd") cwd = words[i + 1];
    else if (word.startsWith("--cwd=")) cwd = word.slice("--cwd=".length);
  }
  startGitStatus(projectRoot(realOr(resolve(cwd ?? process.cwd()))));
}
