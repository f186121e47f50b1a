import type { Diagnostic } from "./diagnostics.ts";

/**
 * The project's language servers as a tool reaches them (src/lsp/ runs them): the diagnostics of a
 * file just written, and the requests the `lsp` tool makes. A server that is not installed, not
 * allowed to start (an untrusted project) or does not answer in time gives null: nothing is said.
 */
export type LanguageServerAccess = {
  /**
   * The errors (and warnings the person opted into) of the file now that TEXT is its content (OLD
   * before; null: a new file): `fresh` the edit brought, `already` there before; `count`: all of them, listed or not.
   */
  diagnose(path: string, text: string, old: string | null): Promise<{ fresh: Diagnostic[]; already: Diagnostic[]; count: number } | null>;
  /** An LSP request about the file (its textDocument is added), or workspace/symbol; null: no server handles the file. */
  request(path: string, method: string, params: Record<string, unknown>): Promise<{ answer: unknown } | null>;
};
