import type { Connection } from "./lsp-connection.ts";

/**
 * How lembas asks a server for a file's diagnostics instead of waiting for what it publishes: the
 * answer is the server's word that it is done with the file, so no wait is spent on a file that has
 * nothing to report (a server need not publish again for a file that stays clean).
 * Items are LSP Diagnostics; null where the server did not answer (in time, or at all).
 */
export type DiagnosticPull = (connection: Connection, uri: string, path: string, waitMs: number) => Promise<unknown[] | null>;

/** typescript-language-server's command that hands a request to its tsserver and returns tsserver's response. */
const TSSERVER_REQUEST = "typescript.tsserverRequest";

/**
 * How this server's diagnostics are pulled, from what it answered initialize: LSP 3.17's
 * textDocument/diagnostic where it offers it; tsserver's own checks where it is
 * typescript-language-server (which offers no pull, and publishes nothing for a file that stays
 * clean); null where it only publishes.
 */
export function pullFor(capabilities: unknown): DiagnosticPull | null {
  const c = capabilities as { diagnosticProvider?: unknown; executeCommandProvider?: { commands?: unknown } } | null;
  if (c?.diagnosticProvider !== undefined && c.diagnosticProvider !== null && c.diagnosticProvider !== false) return lspPull;
  const commands = c?.executeCommandProvider?.commands;
  if (Array.isArray(commands) && commands.includes(TSSERVER_REQUEST)) return tsserverPull;
  return null;
}

async function lspPull(connection: Connection, uri: string, _path: string, waitMs: number): Promise<unknown[] | null> {
  const report = await connection.request("textDocument/diagnostic", { textDocument: { uri } }, waitMs).catch(() => null);
  const items = (report as { items?: unknown } | null)?.items;
  return Array.isArray(items) ? items : null;
}

/**
 * tsserver's syntactic and semantic checks of the file, as typescript-language-server publishes
 * them after an edit (its suggestions are hints, which lembas does not tell of). tsserver answers
 * in the order it is asked, after the edit lembas sent before.
 */
async function tsserverPull(connection: Connection, _uri: string, path: string, waitMs: number): Promise<unknown[] | null> {
  const check = (command: string) =>
    connection.request("workspace/executeCommand", { command: TSSERVER_REQUEST, arguments: [command, { file: path }, { lowPriority: false }] }, waitMs).then(tsDiagnostics, () => null);
  const [syntactic, semantic] = await Promise.all([check("syntacticDiagnosticsSync"), check("semanticDiagnosticsSync")]);
  return syntactic && semantic ? [...syntactic, ...semantic] : null;
}

const CATEGORY: Record<string, number> = { error: 1, warning: 2, message: 3, suggestion: 4 };

/** tsserver's diagnostics (1-based lines and offsets) as LSP's; null for a response that is not a successful one. */
function tsDiagnostics(response: unknown): unknown[] | null {
  const r = response as { success?: unknown; body?: unknown } | null;
  if (r?.success !== true || !Array.isArray(r.body)) return null;
  return r.body.flatMap((item: unknown) => {
    const d = item as { start?: { line?: unknown; offset?: unknown }; text?: unknown; category?: unknown } | null;
    if (typeof d?.start?.line !== "number" || typeof d.start.offset !== "number" || typeof d.text !== "string") return [];
    const position = { line: d.start.line - 1, character: d.start.offset - 1 };
    return [{ range: { start: position, end: position }, severity: CATEGORY[String(d.category)] ?? 1, message: d.text }];
  });
}
