/**
 * Deterministic embeddings for tests and benchmarks: a hashed bag of words (each lower-cased word
 * adds 1 to the coordinate its FNV-1a hash picks, with a sign from another bit), L2-normalised.
 * Texts sharing words have a positive cosine; texts sharing none are near 0.
 */
export const EMBEDDING_DIMENSION = 64;

export function bagOfWords(text: string, dimension = EMBEDDING_DIMENSION): number[] {
  const vector = new Array<number>(dimension).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) {
    const h = fnv1a(word);
    vector[h % dimension] = (vector[h % dimension] ?? 0) + ((h >>> 16) & 1 ? 1 : -1);
  }
  const norm = Math.hypot(...vector);
  // An empty text still gets a unit vector, as a real model gives one.
  if (norm === 0) return vector.map((_, i) => (i === 0 ? 1 : 0));
  return vector.map((v) => v / norm);
}

function fnv1a(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
