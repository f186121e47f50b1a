/** A part of a project file a code search found: its lines (1-based, inclusive), text and score. `path` is relative to the root. */
export type CodeHit = { path: string; startLine: number; endLine: number; text: string; score: number };

/**
 * What a code search answered: the index's passages, best first; before the index is ready, the
 * lines a grep of the files not yet indexed found; and the sentences to say (how far the index is,
 * why it is paused).
 */
export type CodeAnswer = { hits: CodeHit[]; grep: CodeHit[]; notes: string[] };

export type CodeSearchOptions = { path?: string; limit: number };

/** The code index of the session's project, as the `code_search` tool reaches it. */
export type CodeSearch = { search(query: string, options: CodeSearchOptions, signal: AbortSignal): Promise<CodeAnswer> };

/**
 * The code indexes the engine holds (src/code-index/): one per project root, built in the
 * background. `available` is asked every step and costs a stat or two.
 */
export interface CodeIndexBackend {
  /** Whether the root's project is indexed (an embedding model set, not opted out). */
  available(root: string): boolean;
  /** Starts bringing the root's index up to date in the background (nothing when it is running); `say`: where a failure is said, once. */
  warm(root: string, say?: (line: string) => void): void;
  search(root: string, query: string, options: CodeSearchOptions, signal: AbortSignal): Promise<CodeAnswer>;
  /** Stops the indexing going on (the engine's stop). */
  stop(): Promise<void>;
}
