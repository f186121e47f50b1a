/** Where vim's motions take the cursor in the composer's lines (src/tui/vim.ts applies them). */
type Pos = { line: number; col: number };

/**
 * A span of a line that acts as one character (a folded paste's marker, "[paste #1 +300 lines]"):
 * the cursor sits on its first character, a motion steps over it whole, an edit takes all of it
 * or none. `to` is past its last character.
 */
export type Atom = { line: number; from: number; to: number };

/** The atom a column is on (its first character or any other), if any. */
export function atomAt(atoms: readonly Atom[], line: number, col: number): Atom | undefined {
  return atoms.find((atom) => atom.line === line && col >= atom.from && col < atom.to);
}

/** A cursor on an atom is put on its first character. */
export function onAtomStart(atoms: readonly Atom[], pos: Pos): Pos {
  const atom = atomAt(atoms, pos.line, pos.col);
  return atom ? { line: pos.line, col: atom.from } : pos;
}

/** A range [from, to) widened to the whole of any atom it cuts into. */
export function widened(atoms: readonly Atom[], from: Pos, to: Pos): { from: Pos; to: Pos } {
  const first = atomAt(atoms, from.line, from.col);
  const last = atomAt(atoms, to.line, to.col);
  return { from: first ? { line: from.line, col: first.from } : from, to: last && to.col > last.from ? { line: to.line, col: last.to } : to };
}

/** A character's kind for w, b and e: 0 blank (a line's end too), 1 a word's (letters, digits, _), 2 any other. */
export function charClass(char: string | undefined): 0 | 1 | 2 {
  if (char === undefined || /\s/.test(char)) return 0;
  return /[\p{L}\p{N}_]/u.test(char) ? 1 : 2;
}

/**
 * w: the next word's start; e: the end of this word or the next; b: this word's start or the
 * previous one's. Across lines, as vim's; `count` times. A w past the last word lands after the
 * text's end (an operator takes up to it; normal mode's cursor is put back on the last character).
 */
export function wordMotion(lines: readonly string[], from: Pos, key: "w" | "b" | "e", count: number, atoms: readonly Atom[] = []): Pos {
  const text = lines.join("\n");
  // Each atom is a word of its own kind, unlike any other: w, b and e take it as one word.
  const spans = atoms.map((atom) => ({ from: offsetOf(lines, { line: atom.line, col: atom.from }), to: offsetOf(lines, { line: atom.line, col: atom.to }) }));
  const kind = (i: number) => {
    const span = spans.findIndex((s) => i >= s.from && i < s.to);
    return span === -1 ? charClass(text[i]) : 3 + span;
  };
  let at = offsetOf(lines, from);
  for (let n = 0; n < count; n++) {
    if (key === "w") {
      const start = kind(at);
      if (start !== 0) while (at < text.length && kind(at) === start) at++;
      while (at < text.length && kind(at) === 0) at++;
    } else if (key === "e") {
      at++;
      while (at < text.length && kind(at) === 0) at++;
      const end = kind(at);
      while (at + 1 < text.length && kind(at + 1) === end) at++;
      at = Math.min(at, Math.max(0, text.length - 1));
    } else {
      at--;
      while (at > 0 && kind(at) === 0) at--;
      const start = kind(at);
      while (at > 0 && kind(at - 1) === start) at--;
      at = Math.max(0, at);
    }
  }
  return posOf(lines, at);
}

/** h l j k (by `count`, an atom one step), 0, ^ and $ (`count` lines down, at the line's last character). */
export function lineMotion(lines: readonly string[], from: Pos, key: string, count: number, atoms: readonly Atom[] = []): Pos {
  const text = lines[from.line] ?? "";
  let col = from.col;
  switch (key) {
    case "h":
      for (let n = 0; n < count && col > 0; n++) col = onAtomStart(atoms, { line: from.line, col: col - 1 }).col;
      return { line: from.line, col };
    case "l":
      for (let n = 0; n < count && col < text.length; n++) col = atomAt(atoms, from.line, col)?.to ?? col + 1;
      return { line: from.line, col: Math.min(text.length, col) };
    case "j":
      return { line: Math.min(lines.length - 1, from.line + count), col: from.col };
    case "k":
      return { line: Math.max(0, from.line - count), col: from.col };
    case "0":
      return { line: from.line, col: 0 };
    case "^": {
      const first = text.search(/\S/);
      return { line: from.line, col: first === -1 ? text.length : first };
    }
    default: {
      const line = Math.min(lines.length - 1, from.line + count - 1);
      return { line, col: Math.max(0, (lines[line] ?? "").length - 1) };
    }
  }
}

/** A position as an offset into the lines joined by newlines. */
export function offsetOf(lines: readonly string[], pos: Pos): number {
  let offset = 0;
  for (let i = 0; i < pos.line; i++) offset += (lines[i] ?? "").length + 1;
  return offset + pos.col;
}

/** An offset into the lines joined by newlines as a position. */
export function posOf(lines: readonly string[], offset: number): Pos {
  let rest = offset;
  for (let line = 0; line < lines.length; line++) {
    const length = (lines[line] ?? "").length;
    if (rest <= length) return { line, col: rest };
    rest -= length + 1;
  }
  const line = lines.length - 1;
  return { line, col: (lines[line] ?? "").length };
}
