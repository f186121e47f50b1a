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

/**
 * The diagnostics of a file's new content apart from those its old content had already: one is
 * already there when the old had one of the same severity and message on a line of the same text
 * (an edit above it moves it, and it is still the same).
 */
export function apartFromBefore(now: readonly Diagnostic[], text: string, before: { diagnostics: readonly Diagnostic[]; text: string } | null): { fresh: Diagnostic[]; already: Diagnostic[] } {
  if (!before) return { fresh: [...now], already: [] };
  const key = (d: Diagnostic, lines: readonly string[]) => `${d.severity}\0${d.message}\0${(lines[d.line - 1] ?? "").trim()}`;
  const oldLines = before.text.split("\n");
  const left = new Map<string, number>();
  for (const d of before.diagnostics) left.set(key(d, oldLines), (left.get(key(d, oldLines)) ?? 0) + 1);
  const newLines = text.split("\n");
  const fresh: Diagnostic[] = [];
  const already: Diagnostic[] = [];
  for (const d of now) {
    const k = key(d, newLines);
    const n = left.get(k) ?? 0;
    if (n > 0) {
      left.set(k, n - 1);
      already.push(d);
    } else fresh.push(d);
  }
  return { fresh, already };
}

/**
 * What an edit's result says of its file: "new:" and the errors the edit brought, then "already
 * there before this edit: N" and those; the first LISTED in all, then how many more (TOTAL: all the
 * file's, listed or not). The lines for the edit's block in a terminal are the same, labels but "new:".
 */
export function editDiagnosticLines(shown: string, fresh: readonly Diagnostic[], already: readonly Diagnostic[], total: number): { said: string[]; block: string[] } {
  const listed = [...fresh, ...already].slice(0, LISTED);
  const block: string[] = [];
  listed.forEach((d, i) => {
    if (i === fresh.length) block.push(`already there before this edit: ${already.length}`);
    block.push(`${shown}:${d.line}:${d.col} ${SEVERITY[d.severity] ?? "error"} ${oneLine(d.message)}`);
  });
  if (already.length > 0 && listed.length <= fresh.length) block.push(`already there before this edit: ${already.length}`);
  const more = total - listed.length;
  if (more > 0) block.push(`… and ${more} more`);
  return { said: [fresh.length > 0 ? "new:" : "new: none", ...block], block };
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
