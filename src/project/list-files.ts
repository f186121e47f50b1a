import { stat } from "node:fs/promises";
import { join, sep } from "node:path";
import type { Env } from "./ignore-outside.ts";
import { walk } from "./ignore-walk.ts";
import type { PathGuard } from "./protected.ts";

/**
 * Which program lists a project's files: ripgrep at the path given, or the TypeScript walker when
 * null. `env` is the environment ripgrep runs in (and the walker reads HOME and XDG_CONFIG_HOME
 * from), so tests can point git's global excludes at a temp dir.
 */
export type FileLister = { rg: string | null; env?: Env };

/** ripgrep when it is on PATH, else the walker. */
export function defaultLister(): FileLister {
  return { rg: Bun.which("rg") };
}

/** ripgrep's arguments for the listing. `--no-require-git`: .gitignore applies outside a repository too, as in the grep tool. */
export const RG_ARGS = ["--files", "--no-config", "--hidden", "--no-require-git", "--null", "--path-separator", "/", "--glob", "!.git"];

/**
 * The files of the tree at `root` as `rg --files` lists them: relative, `/`-separated, in no
 * particular order; ignored files, `.git`, symlinks and what the guard leaves out left out.
 */
export async function listFiles(root: string, lister: FileLister, guard?: PathGuard): Promise<string[]> {
  const files: string[] = [];
  for await (const batch of listFileBatches(root, lister, guard)) for (const file of batch) files.push(file);
  return files;
}

/**
 * {@link listFiles} in batches as they come, so a caller can work while the listing goes on.
 * Throws when `root` is not a directory (rather than listing nothing, which would read as every
 * file gone).
 */
export async function* listFileBatches(root: string, lister: FileLister, guard?: PathGuard): AsyncGenerator<string[]> {
  const isDir = await stat(root).then((s) => s.isDirectory(), () => false);
  if (!isDir) throw new Error(`cannot list the files of ${root}: it is not a directory`);
  if (!lister.rg) {
    yield* walkerBatches(root, lister.env, guard);
    return;
  }
  // ripgrep's paths are plain relative ones: joined by hand (join's normalising cost more than judging them).
  const prefix = root.endsWith(sep) ? root : `${root}${sep}`;
  for await (const batch of rgBatches(lister.rg, root, lister.env)) {
    const kept = guard ? batch.filter((file) => !guard.leaveOut(sep === "/" ? prefix + file : join(root, file))) : batch;
    if (kept.length > 0) yield kept;
  }
}

async function* rgBatches(rg: string, root: string, env: Env | undefined): AsyncGenerator<string[]> {
  // No `--iglob` per secret name here, unlike a content search: the guard judges every listed path
  // anyway (a secret directory's files by their parent), and the twenty case-insensitive globs cost
  // ripgrep more CPU than our whole judge, beside it on the same cores.
  const proc = Bun.spawn([rg, ...RG_ARGS], { cwd: root, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const stderr = new Response(proc.stderr).text();
  let listed = false;
  let read = false;
  try {
    for await (const files of nulSeparated(proc.stdout)) {
      listed = true;
      yield files;
    }
    read = true;
  } finally {
    // A consumer that stopped early leaves ripgrep nothing to write to.
    if (!read) proc.kill();
  }
  const code = await proc.exited;
  // 1 is "nothing listed"; 2 after output means some entries were unreadable, which rg skips.
  if (code === 2 && !listed) throw new Error(`ripgrep could not list ${root}: ${(await stderr).trim().split("\n")[0] ?? ""}`);
}

/**
 * The NUL-terminated paths of a stream of UTF-8 chunks, a batch per chunk as it comes: a path (or
 * a character) cut by a chunk's edge is carried over to the next, and a last one left unterminated
 * is given at the end.
 */
export async function* nulSeparated(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string[]> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of chunks) {
    const text = pending + decoder.decode(chunk, { stream: true });
    const files = text.split("\0");
    pending = files.pop() ?? "";
    if (files.length > 0) yield files;
  }
  const rest = pending + decoder.decode();
  if (rest !== "") yield [rest];
}

const WALK_BATCH = 2_000;

async function* walkerBatches(root: string, env: Env | undefined, guard: PathGuard | undefined): AsyncGenerator<string[]> {
  let batch: string[] = [];
  for await (const entry of walk(root, { root, parents: true, env, leaveOut: guard?.leaveOut })) {
    if (entry.type !== "file") continue;
    batch.push(entry.rel);
    if (batch.length >= WALK_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
