/**
 * Deterministic embeddings for tests and benchmarks: a hashed bag of words (each lower-cased word
 * adds 1 to the coordinate its FNV-1a hash picks among all but the last few, with a sign from
 * another bit), L2-normalised.
 * Texts sharing words have a positive cosine; texts sharing none are near 0.
 *
 * Like a real model, it knows a few words mean the same: each group of RELATED words (and their
 * inflections, up to three letters more: "deleting", "logins") adds to a coordinate of the
 * group's own (one of the last few), also where the word is a hump of an identifier (removeUser,
 * check_credentials), so "erase a customer" is near `removeUser` though they share no word.
 */
export const EMBEDDING_DIMENSION = 64;

/** Words a query may use for what code names otherwise: each group is one meaning. */
export const RELATED: readonly (readonly string[])[] = [
  ["remove", "delete", "erase", "drop", "destroy", "purge"],
  ["authenticate", "login", "credentials", "password", "signin", "auth"],
];

export function bagOfWords(text: string, dimension = EMBEDDING_DIMENSION): number[] {
  const vector = new Array<number>(dimension).fill(0);
  // The last coordinates are the meanings' own, one each: no word lands on them.
  const words = dimension > RELATED.length * 4 ? dimension - RELATED.length : dimension;
  for (const token of text.match(/[\p{L}\p{N}_]+/gu) ?? []) {
    const h = fnv1a(token.toLowerCase());
    vector[h % words] = (vector[h % words] ?? 0) + ((h >>> 16) & 1 ? 1 : -1);
    for (const group of meanings(token)) {
      // A meaning weighs more than a word: a query in other words lands near the code that does it.
      const at = words < dimension ? words + group : group;
      vector[at] = (vector[at] ?? 0) + 4;
    }
  }
  const norm = Math.hypot(...vector);
  // An empty text still gets a unit vector, as a real model gives one.
  if (norm === 0) return vector.map((_, i) => (i === 0 ? 1 : 0));
  return vector.map((v) => v / norm);
}

/** The RELATED groups a token's humps (camelCase, snake_case: removeUser is remove, user) belong to. */
function meanings(token: string): Set<number> {
  const found = new Set<number>();
  for (const hump of token.split(/_|(?<=[a-z0-9])(?=[A-Z])/)) {
    const word = hump.toLowerCase();
    const group = RELATED.findIndex((g) => g.some((w) => word.startsWith(w) && word.length - w.length <= 3));
    if (group >= 0) found.add(group);
  }
  return found;
}

function fnv1a(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
