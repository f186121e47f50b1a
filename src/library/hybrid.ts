import type { Scored } from "./vectors.ts";

/** Reciprocal rank fusion's constant (Cormack et al.: 60 works across collections). */
export const RRF_K = 60;

/**
 * Combines rankings (each best first) by reciprocal rank fusion: an id's score is the sum over
 * the rankings that hold it of 1 / (RRF_K + rank). Best first, `limit` of them.
 */
export function fuse(rankings: readonly (readonly { id: number }[])[], limit: number): Scored[] {
  const scores = new Map<number, number>();
  for (const ranking of rankings) {
    ranking.forEach((entry, rank) => scores.set(entry.id, (scores.get(entry.id) ?? 0) + 1 / (RRF_K + rank + 1)));
  }
  return [...scores.entries()]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, limit);
}

/**
 * A query as an FTS5 MATCH expression: its words, each quoted (so that FTS5's syntax in what a
 * person typed is text), any of them (OR): bm25 ranks the chunks with more of them higher.
 * Null when the query has no word.
 */
export function matchExpression(query: string): string | null {
  const words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const unique = [...new Set(words)].slice(0, 32);
  if (unique.length === 0) return null;
  return unique.map((w) => `"${w}"`).join(" OR ");
}
