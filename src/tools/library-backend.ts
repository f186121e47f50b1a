/**
 * A passage the library found: where it is (a file and its lines), its text, and how well it
 * matched. `citation`: how a passage that is no file of this device (the account's library) is
 * cited, as the instance names its source (title, URL, path).
 */
export type Passage = { path: string; startLine: number; endLine: number; text: string; score: number; citation?: string };

/**
 * What the model's `library` tool reaches: the device's own library (library/local.ts), or the account's
 * (library/account.ts: the instance's /mcp library tool). Tools get it through ToolContext, never the store.
 */
export interface LibraryBackend {
  /** "local" | "lembas": whose library it is, for what a result says. */
  readonly kind: "local" | "lembas";
  /** Whether there is anything to search (the tool is offered only then). Cheap: asked every step. */
  available(): boolean;
  /** The passages best matching the query, best first; throws an Error whose message is the sentence. */
  search(query: string, limit: number, signal: AbortSignal): Promise<Passage[]>;
  /**
   * Brings the library up to date with its files before a search, bounded (the device's: refresh.ts);
   * the sentences to say of it (what was re-indexed, dropped, left for later). Throws only when stopped.
   */
  refresh?(signal: AbortSignal): Promise<string[]>;
  /** Whether an offered MCP tool (`mcp__<server>__<tool>`) is this library's own, which `library` stands for. */
  covers?(tool: string): boolean;
  /** Lets go of what searching holds (the account's: its /mcp connection); the engine's stop calls it. */
  stop?(): Promise<void>;
}
