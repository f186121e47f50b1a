import { statSync } from "node:fs";
import { join } from "node:path";
import type { EmbeddingTarget } from "../library/embedding-target.ts";
import { EMBED_BATCH, embedTexts, EmbeddingError, type EmbedOptions } from "../library/embeddings.ts";
import { entriesOf, type FileIndex } from "../project/file-index.ts";
import { refreshFileIndex } from "../project/file-refresh.ts";
import { codeDimension, codeFile, codeStamps, type NewCodeChunk, type Stamp, removeCodeFiles, touchCodeFile, writeCodeFile } from "../store/code-files.ts";
import type { Db } from "../store/db.ts";
import { codeChunks } from "./code-chunks.ts";
import { leftOutByName, sourceText } from "./eligible.ts";
import { holdsSecret } from "./secret-text.ts";

export type SyncDeps = {
  db: Db;
  /** Absolute. */
  root: string;
  target: EmbeddingTarget;
  /** The project's file index: its listing (ripgrep's, gitignored and protected files left out) is what is indexed. */
  files: FileIndex;
  embed?: Pick<EmbedOptions, "timing" | "batchSize" | "signal">;
};

/**
 * One pass over the project: the files to (re)index in `pending` (read from `cursor` on), how many
 * the listing has, how many are done, and the most chunks held in memory at once (the bound).
 */
export type Plan = {
  total: number;
  done: number;
  pending: string[];
  cursor: number;
  peakHeld: number;
  chunks: number;
  /** Milliseconds the listing with the stats beside it, and the comparison after (the benchmark's breakdown). */
  listMs: number;
  compareMs: number;
};

/** Files stat'ed between two yields to the event loop. */
const STAT_SLICE = 2_000;
/** How often a file that keeps changing while it is embedded is read again before it waits for the next pass. */
const REREADS = 3;

/**
 * Lists the project again (the file index's refresh) and compares each file's size and time with
 * what the index holds: new, changed and re-modelled files are pending; the index's files that are
 * gone are taken out. Costs a stat per file, no read; the files the index holds are stat'ed while
 * ripgrep lists the tree (its own process), the new ones need none.
 */
export async function planSync(deps: SyncDeps): Promise<Plan> {
  const { db, root, target, files } = deps;
  const signal = deps.embed?.signal;
  const started = performance.now();
  const stored = codeStamps(db, root);
  const [, changed] = await Promise.all([refreshFileIndex(files, { force: true }), changedOf(root, stored, target.ref, signal)]);
  const listed = performance.now();
  const pending: string[] = [];
  let total = 0;
  for (const [path, kind] of entriesOf(files)) {
    if (kind !== "file" || leftOutByName(path) !== null) continue;
    total += 1;
    const known = stored.has(path);
    stored.delete(path);
    if (!known || changed.has(path)) pending.push(path);
  }
  // What the index holds that the listing no longer has: deleted, gitignored or protected since.
  removeCodeFiles(db, root, [...stored.keys()]);
  return { total, done: total - pending.length, pending, cursor: 0, peakHeld: 0, chunks: 0, listMs: listed - started, compareMs: performance.now() - listed };
}

/** The stored files whose size or time moved, or that another model embedded (a stat each, in slices). */
async function changedOf(root: string, stored: ReadonlyMap<string, Stamp>, model: string, signal: AbortSignal | undefined): Promise<Set<string>> {
  const changed = new Set<string>();
  let seen = 0;
  for (const [path, [mtime, size, by, skipped]] of stored) {
    if (++seen % STAT_SLICE === 0) {
      await Bun.sleep(0);
      if (signal?.aborted) throw new EmbeddingError("stopped");
    }
    const info = statOf(join(root, path));
    // Gone: the listing does not have it either, and it is taken out.
    if (!info) continue;
    const same = Math.floor(info.mtimeMs) === mtime && info.size === size;
    if (!same || (skipped === null && by !== model)) changed.add(path);
  }
  return changed;
}

type Read = { path: string; hash: string; mtime: number; size: number; expect: string | null; chunks: { startLine: number; endLine: number; text: string }[] };

/**
 * Embeds the plan's pending files from its cursor: each read, chunked, its chunks embedded in
 * batches shared with its neighbours (at most a batch and one file's chunks held at once), then
 * written whole in one transaction, unless it changed on disk meanwhile: then it is read again
 * (the newer content wins). An EmbeddingError leaves the files not written pending, and is thrown.
 */
export async function embedPending(deps: SyncDeps, plan: Plan): Promise<void> {
  const batch = deps.embed?.batchSize ?? EMBED_BATCH;
  const rereads = new Map<string, number>();
  let group: Read[] = [];
  let held = 0;
  const flush = async (): Promise<void> => {
    const files = group;
    group = [];
    held = 0;
    if (files.length === 0) return;
    try {
      await writeGroup(deps, files, plan, rereads);
    } catch (error) {
      // Not written: they are done at the next pass.
      plan.pending.push(...files.map((f) => f.path));
      throw error;
    }
  };
  // The last group's flush may put back a file that changed meanwhile: it is read again then.
  while (plan.cursor < plan.pending.length) {
    while (plan.cursor < plan.pending.length) {
      if (deps.embed?.signal?.aborted) throw new EmbeddingError("stopped");
      const path = plan.pending[plan.cursor++] ?? "";
      const read = await readFile(deps, path);
      if (read === null) {
        plan.done += 1;
        continue;
      }
      group.push(read);
      held += read.chunks.length;
      plan.peakHeld = Math.max(plan.peakHeld, held);
      if (held >= batch) await flush();
    }
    await flush();
  }
}

async function writeGroup(deps: SyncDeps, files: readonly Read[], plan: Plan, rereads: Map<string, number>): Promise<void> {
  const { db, root, target } = deps;
  const texts = files.flatMap((f) => f.chunks.map((c) => `${f.path}\n${c.text}`));
  const dimension = codeDimension(db, root, target.ref);
  const vectors = await embedTexts(target, texts, { ...deps.embed, ...(dimension !== undefined ? { dimension } : {}) });
  let at = 0;
  // The group's files in one transaction (each still written only if no other writer changed it): a commit per batch, not per file.
  db.transaction(() => {
    for (const file of files) {
      const mine = vectors.slice(at, at + file.chunks.length);
      at += file.chunks.length;
      const now = statOf(join(root, file.path));
      if (now && (Math.floor(now.mtimeMs) !== file.mtime || now.size !== file.size)) {
        // Changed while it was embedded: what it holds now is read and embedded instead.
        const times = (rereads.get(file.path) ?? 0) + 1;
        rereads.set(file.path, times);
        if (times <= REREADS) plan.pending.push(file.path);
        else plan.done += 1;
        continue;
      }
      const chunks: NewCodeChunk[] = file.chunks.map((c, j) => ({ ...c, vector: mine[j] as Float32Array }));
      const row = { path: file.path, hash: file.hash, mtime: file.mtime, size: file.size, model: target.ref, dimension: mine[0]?.length ?? 0, skipped: null };
      if (now) writeCodeFile(db, root, row, chunks, file.expect);
      plan.done += 1;
      plan.chunks += chunks.length;
    }
  }).immediate();
}

/**
 * A pending file read and chunked, or null when there is nothing to embed: gone, unchanged by
 * content (its time recorded), or left out (binary, minified, generated, too large: a row without
 * chunks records why).
 */
async function readFile(deps: SyncDeps, path: string): Promise<Read | null> {
  const { db, root, target } = deps;
  const absolute = join(root, path);
  const info = statOf(absolute);
  if (!info) return null;
  let bytes: Uint8Array;
  try {
    bytes = await Bun.file(absolute).bytes();
  } catch {
    return null;
  }
  const hash = Bun.hash(bytes).toString(16);
  const known = codeFile(db, root, path);
  const mtime = Math.floor(info.mtimeMs);
  if (known && known.hash === hash && (known.skipped !== null || known.model === target.ref)) {
    touchCodeFile(db, root, path, bytes.byteLength, mtime);
    return null;
  }
  const source = sourceText(bytes);
  const cut = "text" in source ? codeChunks(source.text, path) : [];
  // A chunk that looks like it holds a credential never leaves the device.
  const chunks = cut.filter((c) => !holdsSecret(c.text));
  if (chunks.length === 0) {
    const skipped = "skipped" in source ? source.skipped : cut.length > 0 ? "holds a secret" : "empty";
    writeCodeFile(db, root, { path, hash, mtime, size: bytes.byteLength, model: target.ref, dimension: 0, skipped }, [], known?.hash ?? null);
    return null;
  }
  return { path, hash, mtime, size: bytes.byteLength, expect: known?.hash ?? null, chunks };
}

function statOf(path: string): { mtimeMs: number; size: number } | null {
  try {
    const s = statSync(path);
    return s.isFile() ? s : null;
  } catch {
    return null;
  }
}
