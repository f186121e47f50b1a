import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { spawnGit, withoutProjectPrograms, withoutProjectProgramsNow } from "../project/git-safety.ts";

/** The changed files a session's start shows at most; the rest are counted. */
const MAX_FILES = 20;
const TIMEOUT_MS = 3_000;
/** A huge status (a tree of untracked files) is not read whole: the first lines are all it shows. */
const MAX_BYTES = 64 * 1024;

/** Statuses set going before the session that shows them exists (startGitStatus), by project root. */
const early = new Map<string, Promise<string | null>>();

/**
 * Sets the project's git status going ahead of the session that will show it: a one-shot starts it
 * before its modules load, and git runs meanwhile. The next gitStatus of that root takes it.
 */
export function startGitStatus(root: string): void {
  if (!early.has(root)) early.set(root, readGitStatus(root, TIMEOUT_MS));
}

/**
 * The project's git status as the model is shown it at a session's start: the branch, then up to
 * 20 changed files in porcelain form. Null when the project is no git repository, git is missing,
 * or it does not answer within 3 s. A directory with no `.git` in it or above it (and no GIT_DIR)
 * is no repository: git is not started for it.
 */
export function gitStatus(root: string, timeoutMs = TIMEOUT_MS): Promise<string | null> {
  const started = early.get(root);
  if (!started) return readGitStatus(root, timeoutMs);
  early.delete(root);
  return started;
}

async function readGitStatus(root: string, timeoutMs: number): Promise<string | null> {
  if (!process.env.GIT_DIR && !insideRepository(root)) return null;
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    // Most repositories set no filter: git status then starts now, not after a `git config` (and
    // a one-shot's status runs while its modules load, not after them: bench/RUN.md).
    const overrides = withoutProjectProgramsNow(root) ?? (await withoutProjectPrograms(root, signal));
    if (!overrides) return null;
    const child = spawnGit(root, [...overrides, "--no-optional-locks", "status", "--porcelain=v1", "-b", "--ignore-submodules=all"], signal);
    const read = await readCapped(child.stdout, MAX_BYTES);
    if (read.cut) {
      child.kill();
      // The last line may be cut in two: it is left out, and the count says "more".
      return describeStatus(read.text.slice(0, read.text.lastIndexOf("\n") + 1), true);
    }
    if ((await child.exited) !== 0) return null;
    return describeStatus(read.text);
  } catch {
    return null;
  }
}

/** Whether `dir` or a directory above it holds `.git` (a directory, or a worktree's file). */
export function insideRepository(dir: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    if (statSync(join(at, ".git"), { throwIfNoEntry: false })) return true;
    if (dirname(at) === at) return false;
  }
}

/** `git status --porcelain=v1 -b` as a few lines: "branch …", then the files. */
export function describeStatus(porcelain: string, cut = false): string | null {
  const lines = porcelain.split("\n").filter((line) => line !== "");
  const head = lines[0];
  if (head === undefined || !head.startsWith("## ")) return null;
  const files = lines.slice(1);
  const shown = files.slice(0, MAX_FILES);
  const more = files.length - shown.length;
  const parts = [`branch ${head.slice(3)}`];
  if (files.length === 0) parts.push("no changes");
  parts.push(...shown);
  if (cut) parts.push("… and more");
  else if (more > 0) parts.push(`… and ${more} more`);
  return parts.join("\n");
}

/** At most `max` bytes of the stream; cut only when there was more than `max` (an answer of exactly `max` is whole). */
async function readCapped(stream: ReadableStream<Uint8Array>, max: number): Promise<{ text: string; cut: boolean }> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = stream.getReader();
  try {
    while (bytes <= max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.byteLength;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const all = Buffer.concat(chunks);
  return { text: all.subarray(0, max).toString("utf8"), cut: bytes > max };
}
