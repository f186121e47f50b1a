const SIMPLE: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/**
 * The text of a `$'…'` (what is between its quotes, as written) as bash decodes it; null for what
 * is not worth getting right (`\c`, a code point bash would refuse).
 */
export function decodeAnsiC(raw: string): string | null {
  let out = "";
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] ?? "";
    if (c !== "\\") {
      out += c;
      continue;
    }
    const next = raw[i + 1] ?? "";
    const simple = SIMPLE[next];
    if (simple !== undefined) {
      out += simple;
      i++;
      continue;
    }
    const numeric = /^([0-7]{1,3})|^x([0-9A-Fa-f]{1,2})|^u([0-9A-Fa-f]{1,4})|^U([0-9A-Fa-f]{1,8})/.exec(raw.slice(i + 1));
    if (!numeric) {
      if (next === "c" || next === "x" || next === "u" || next === "U") return null;
      // An unknown escape stays as written.
      out += `\\${next}`;
      i++;
      continue;
    }
    const [whole, octal, hex, short, long] = numeric;
    const code = octal !== undefined ? Number.parseInt(octal, 8) : Number.parseInt(hex ?? short ?? long ?? "", 16);
    if (code === 0) return out; // bash ends the string at a NUL.
    if (code > 0x10ffff) return null;
    out += octal !== undefined || hex !== undefined ? String.fromCharCode(code & 0xff) : String.fromCodePoint(code);
    i += whole.length;
  }
  return out;
}
