/** The bit of a (lowercase) character: one per letter, one for digits, `/`, `.`, `-` and `_`, the rest. */
export function charBit(code: number): number {
  if (code >= 97 && code <= 122) return 1 << (code - 97);
  if (code >= 48 && code <= 57) return 1 << 26;
  if (code === 47) return 1 << 27;
  if (code === 46) return 1 << 28;
  if (code === 45 || code === 95) return 1 << 29;
  return 1 << 30;
}
