import { withoutControls } from "../controls.ts";
import { cleanTitle } from "../engine/side-calls.ts";
import type { SessionRow } from "../store/sessions.ts";

/** The columns sessions are listed in (`lembas sessions list`, what a prune would delete). */
export const SESSION_HEADER = ["ID", "UPDATED (UTC)", "TITLE", "DIRECTORY"] as const;

/** A session's cells under SESSION_HEADER: text only, whatever its title was stored with. */
export function sessionCells(s: SessionRow): string[] {
  return [
    s.id,
    new Date(s.updatedAt).toISOString().slice(0, 16).replace("T", " "),
    // Titles stored before they were cleaned may still carry terminal control: print text only.
    clip(cleanTitle(s.title) || "(untitled)", 48),
    withoutControls(s.cwd),
  ];
}

/** Rows under a header, each column as wide as its widest cell (in terminal columns); the last is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(Bun.stringWidth(h), ...rows.map((r) => Bun.stringWidth(r[i] ?? ""))));
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => (i === cells.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - Bun.stringWidth(cell)))).join("  ");
  return [line(header), ...rows.map(line)];
}

function clip(text: string, most: number): string {
  return text.length > most ? `${text.slice(0, most - 1)}…` : text;
}

/** "1 session", "3 sessions". */
export function sessionCount(n: number): string {
  return `${n} session${n === 1 ? "" : "s"}`;
}
