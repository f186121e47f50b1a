import { isAbsolute, relative } from "node:path";
import type { TargetResult } from "../library/embedding-target.ts";
import { embedTexts, EmbeddingError, type EmbedOptions } from "../library/embeddings.ts";
import { MAX_QUERY_CHARS } from "../library/local.ts";
import { openFileIndex, type FileIndex } from "../project/file-index.ts";
import type { ProtectedPaths } from "../project/protected.ts";
import { codeDimension, codeIndexCounts } from "../store/code-files.ts";
import type { Db } from "../store/db.ts";
import type { CodeAnswer, CodeSearchOptions } from "../tools/code-search-backend.ts";
import { grepFiles } from "./unindexed-grep.ts";
import { CodeSearcher, pathFilter } from "./code-searcher.ts";
import { embedPending, type Plan, planSync } from "./sync.ts";

/** A search waits for a pass that has at most this many files left (an edit or two): it answers from them. */
export const SEARCH_WAITS_FILES = 32;
/** The first wait after the embedding server failed, doubled at each failure up to BACKOFF_MAX_MS. */
export const BACKOFF_MS = 5_000;
const BACKOFF_MAX_MS = 5 * 60_000;

export type CodeIndexDeps = {
  db: Db;
  /** Absolute. */
  root: string;
  target: () => TargetResult;
  protectedPaths: ProtectedPaths;
  /** Where a sentence the person should see once goes (the embedding server failing). */
  say?: (line: string) => void;
  embed?: Pick<EmbedOptions, "timing" | "batchSize">;
  /** The first wait after a failure (tests shorten it). */
  backoffMs?: number;
};

/**
 * One project's code index in this process: passes over its files run in the background, one at a
 * time; a failure of the embedding server pauses them (backoff, said once) and the next pass takes
 * up what was not done. Searches answer from what is indexed at once, plus a grep of the rest.
 */
export class CodeIndex {
  private readonly files: FileIndex;
  private readonly searcher: CodeSearcher;
  private readonly stopper = new AbortController();
  private plan: Plan | null = null;
  private running: Promise<void> | null = null;
  private planned: Promise<Plan | null> = Promise.resolve(null);
  private retry: ReturnType<typeof setTimeout> | null = null;
  private wait: number;
  /** Why the last pass stopped (the embedding server's sentence), and whether a search said it yet. */
  private problem: { text: string; said: boolean } | null = null;

  constructor(private readonly deps: CodeIndexDeps) {
    this.files = openFileIndex(deps.db, deps.root, { protectedPaths: deps.protectedPaths });
    this.searcher = new CodeSearcher(deps.db, deps.root);
    this.wait = deps.backoffMs ?? BACKOFF_MS;
  }

  /** Where the sentence of a failure goes from now on (the session that last warmed the index), over `say`. */
  private listener: ((line: string) => void) | null = null;

  listen(say: (line: string) => void): void {
    this.listener = say;
  }

  /** Starts a pass unless one runs or a failure is waited out; resolves when it knows its files. */
  start(): Promise<Plan | null> {
    if (this.running || this.retry || this.stopper.signal.aborted) return this.planned;
    const target = this.deps.target();
    if (!target.ok) return Promise.resolve(null);
    const deps = { db: this.deps.db, root: this.deps.root, target: target.value, files: this.files, embed: { ...this.deps.embed, signal: this.stopper.signal } };
    let known: (plan: Plan | null) => void = () => {};
    this.planned = new Promise((resolve) => {
      known = resolve;
    });
    this.running = (async () => {
      const plan = await planSync(deps);
      this.plan = plan;
      known(plan);
      await embedPending(deps, plan);
      this.problem = null;
      this.wait = this.deps.backoffMs ?? BACKOFF_MS;
    })()
      .catch((error: unknown) => {
        known(this.plan);
        if (this.stopper.signal.aborted) return;
        this.failed(error instanceof Error ? error.message : String(error));
      })
      .finally(() => {
        this.running = null;
      });
    return this.planned;
  }

  /** What a pass would do (a listing, a stat per file), nothing embedded; null without an embedding model. */
  async survey(): Promise<Plan | null> {
    const target = this.deps.target();
    if (!target.ok) return null;
    return planSync({ db: this.deps.db, root: this.deps.root, target: target.value, files: this.files });
  }

  /** The pass going on, to its end (tests, `lembas index rebuild`). */
  async settled(): Promise<void> {
    await this.start();
    await this.running;
  }

  /** How far the index is: files done of the listing's, chunks held; null before the first pass. */
  progress(): { done: number; total: number; ready: boolean; problem: string | null; peakHeld: number; listMs: number; compareMs: number } | null {
    const plan = this.plan;
    if (!plan) return null;
    const { done, total, peakHeld, listMs, compareMs } = plan;
    return { done, total, ready: this.running === null && plan.cursor >= plan.pending.length, problem: this.problem?.text ?? null, peakHeld, listMs, compareMs };
  }

  async search(query: string, options: CodeSearchOptions, signal: AbortSignal): Promise<CodeAnswer> {
    const target = this.deps.target();
    if (!target.ok) throw new Error(target.error);
    const plan = await this.start();
    // A pass with a few files left (the ones just edited) is waited for: the answer has them.
    if (plan && this.running && plan.pending.length - plan.cursor <= SEARCH_WAITS_FILES) await this.running;
    const { db, root } = this.deps;
    const dimension = codeDimension(db, root, target.value.ref);
    const notes: string[] = [];
    let vector: Float32Array | null = null;
    try {
      [vector = null] = await embedTexts(target.value, [query.slice(0, MAX_QUERY_CHARS)], { signal, retries: 0, ...(dimension !== undefined ? { dimension } : {}) });
    } catch (error) {
      if (signal.aborted || !(error instanceof EmbeddingError)) throw error;
      // The words still find what has them: the index's text and a grep.
      if (!this.problem) notes.push(`the query could not be embedded (${error.message}): these results match its words only`);
    }
    // A path given whole (the model's read takes those) is the same filter relative to the root.
    const path = options.path && isAbsolute(options.path) ? relative(root, options.path) : options.path;
    const within = path ? pathFilter(path) : undefined;
    const { hits, cut } = this.searcher.search(query, vector, target.value.ref, options.limit, within);
    if (cut > 0) notes.push(`${cut} weaker ${cut === 1 ? "match was" : "matches were"} left out, far below the best one; other words, a narrower path or grep find more`);
    const now = this.plan;
    const ready = now !== null && this.running === null && now.cursor >= now.pending.length;
    if (this.problem) {
      notes.push(this.problem.said ? "indexing is paused (the embedding server failed, said before): these results match the query's words only" : `indexing is paused: ${this.problem.text}; it is tried again with growing waits, and these results match the query's words only`);
      this.problem.said = true;
    }
    if (ready || !now) return { hits, grep: [], notes };
    const rest = now.pending.slice(now.cursor);
    const grep = await grepFiles(root, rest, query, options.limit, within);
    // Files and chunks read at one moment (a file's chunks and its count are written together): the pass went on during the grep.
    const chunks = codeIndexCounts(db, root).chunks;
    const at = (count: number) => count.toLocaleString("en");
    notes.unshift(
      `the index is being built: ${at(now.done)} of ${at(now.total)} files, ${at(chunks)} chunks so far; these results are from what is indexed, and a grep of the query's words in ${at(grep.looked)} of the ${at(rest.length)} files not yet indexed`,
    );
    return { hits, grep: grep.hits, notes };
  }

  /**
   * Stops the pass going on (at its next file or request: what it wrote stays whole) and any wait
   * for the next. Not waited for: a one-shot that ends is not held by a listing of a large tree.
   */
  async stop(): Promise<void> {
    this.stopper.abort();
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
  }

  /** The pass going on, ended (after stop: at its next file or request). */
  async ended(): Promise<void> {
    await this.running;
  }

  private failed(text: string): void {
    if (this.problem?.text !== text) {
      this.problem = { text, said: false };
      (this.listener ?? this.deps.say)?.(`the code index is paused: ${text}`);
    }
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.start();
    }, this.wait);
    this.retry.unref?.();
    this.wait = Math.min(this.wait * 2, BACKOFF_MAX_MS);
  }
}
