/** A passage the library found: where it is (a file and its lines), its text, and how well it matched. */
export type Passage = { path: string; startLine: number; endLine: number; text: string; score: number };

/**
 * What the model's `library` tool reaches: the device's own library (local.ts) now, the account's
 * (the instance's /mcp library tools) later. Tools get it through ToolContext, never the store.
 */
export interface LibraryBackend {
  /** "local" | "lembas": whose library it is, for what a result says. */
  readonly kind: "local" | "lembas";
  /** Whether there is anything to search (the tool is offered only then). Cheap: asked every step. */
  available(): boolean;
  /** The passages best matching the query, best first; throws an Error whose message is the sentence. */
  search(query: string, limit: number, signal: AbortSignal): Promise<Passage[]>;
}
