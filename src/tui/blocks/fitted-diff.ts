import { unifiedDiff } from "../../tools/diff.ts";
import { plain } from "./plain.ts";

/**
 * A change's diff lines in at most `max` lines where it can be: with less context around each
 * change (3 lines, 1, none) until every change fits, so a change several hunks apart is seen
 * whole; longer only when the changed lines alone do not fit (the caller cuts and counts them).
 */
export function fittedDiff(oldText: string, newText: string, max: number): string[] {
  let lines: string[] = [];
  for (const context of [3, 1, 0]) {
    const text = plain(unifiedDiff(oldText, newText, { context, maxLines: 100_000 }));
    lines = text ? text.split("\n") : [];
    if (lines.length <= max) return lines;
  }
  return lines;
}
