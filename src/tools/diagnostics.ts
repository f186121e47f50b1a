import { counted } from "../plural.ts";

/** One diagnostic as lembas keeps it: 1-based line and column, and LSP's severity (1 error … 4 hint). */
export type Diagnostic = { line: number; col: number; severity: number; message: string };

/** The most diagnostics one tool result lists; the rest are counted. */
export const LISTED = 20;

const SEVERITY = ["", "error", "warning", "info", "hint"];

/** A diagnostic of LSP's shape, or null for one that is not. */
export function fromLsp(item: unknown): Diagnostic | null {
  const d = item as { range?: { start?: { line?: unknown; character?: unknown } }; severity?: unknown; message?: unknown } | null;
  const line = d?.range?.start?.line;
  const character = d?.range?.start?.character;
  if (typeof line !== "number" || typeof character !== "number" || typeof d?.message !== "string") return null;
  // A server that gives none means an error (the specification leaves it to the client).
  const severity = typeof d.severity === "number" && d.severity >= 1 && d.severity <= 4 ? d.severity : 1;
  return { line: line + 1, col: character + 1, severity, message: d.message };
}

/** The ones the person wants to hear of: errors, and warnings when they opted in. */
export function worthSaying(diagnostics: readonly Diagnostic[], warnings: boolean): Diagnostic[] {
  return diagnostics.filter((d) => d.severity === 1 || (warnings && d.severity === 2));
}

/** `path:line:col severity message`, one line each: the first LISTED, then how many more. */
export function diagnosticLines(shown: string, diagnostics: readonly Diagnostic[], total = diagnostics.length): string[] {
  const lines = diagnostics.slice(0, LISTED).map((d) => `${shown}:${d.line}:${d.col} ${SEVERITY[d.severity] ?? "error"} ${oneLine(d.message)}`);
  const more = total - Math.min(diagnostics.length, LISTED);
  if (more > 0) lines.push(`… and ${more} more`);
  return lines;
}

/** "2 errors in src/app.ts", "1 error and 3 warnings in a.ts, b.ts": what a turn left for the person to hear of. */
export function turnSummary(files: ReadonlyMap<string, { errors: number; warnings: number }>): string | null {
  const bad = [...files].filter(([, c]) => c.errors + c.warnings > 0);
  if (bad.length === 0) return null;
  const errors = bad.reduce((n, [, c]) => n + c.errors, 0);
  const warnings = bad.reduce((n, [, c]) => n + c.warnings, 0);
  const counts = [errors > 0 ? counted(errors, "error") : "", warnings > 0 ? counted(warnings, "warning") : ""].filter(Boolean).join(" and ");
  const names = bad.map(([name]) => name);
  const listed = names.length > 3 ? `${names.slice(0, 3).join(", ")} and ${names.length - 3} more files` : names.join(", ");
  return `${counts} in ${listed}`;
}

function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, " ").trim();
}
