/**
 * The candidate one word is a likely typo of, for "did you mean": one edit for a word of four
 * letters or fewer, two for a longer one (else `lembas test` would be taken for trust).
 */
export function nearest(word: string, candidates: Iterable<string>): string | null {
  const most = word.length <= 4 ? 1 : 2;
  let best: { name: string; distance: number } | null = null;
  for (const name of candidates) {
    const distance = editDistance(word, name);
    if (distance <= most && (best === null || distance < best.distance)) best = { name, distance };
  }
  return best?.name ?? null;
}

/** " (did you mean X?)", or nothing when no candidate is near; `shown` spells the one found (a dotted key, say). */
export function didYouMean(word: string, candidates: Iterable<string>, shown: (name: string) => string = (name) => name): string {
  const near = nearest(word, candidates);
  return near ? ` (did you mean ${shown(near)}?)` : "";
}

/** Edits (insert, delete, change, swap two neighbours) from one word to another. */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number) => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] ?? [];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(at(i, j), at(i - 2, j - 2) + 1);
    }
  }
  return at(a.length, b.length);
}
