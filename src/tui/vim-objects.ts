/**
 * Vim's finds (f F t T), text objects (iw aw, i" a", i( a( and the other brackets) and J, on the
 * composer's lines: pure functions src/tui/vim-keys.ts calls.
 */
import { charClass, offsetOf, posOf } from "./vim-motions.ts";

type Pos = { line: number; col: number };
export type FindKind = "f" | "F" | "t" | "T";

/**
 * The column f, F, t or T with `char` takes the cursor to on its line, the `count`-th match (t
 * stops before it, T after it); null when there are not that many. `again` (; and ,) skips a
 * match right next to the cursor for t and T, which would not move it.
 */
export function findChar(text: string, col: number, kind: FindKind, char: string, count: number, again = false): number | null {
  const forward = kind === "f" || kind === "t";
  const till = kind === "t" || kind === "T";
  const step = forward ? 1 : -1;
  let at = col + step * (till && again ? 2 : 1);
  let found = -1;
  for (let n = 0; n < count; n++) {
    while (at >= 0 && at < text.length && text[at] !== char) at += step;
    if (at < 0 || at >= text.length) return null;
    found = at;
    at += step;
  }
  return till ? found - step : found;
}

/** The reverse of a find, for `,`. */
export function reversed(kind: FindKind): FindKind {
  return ({ f: "F", F: "f", t: "T", T: "t" } as const)[kind];
}

const PAIRS: Record<string, readonly [string, string]> = {
  "(": ["(", ")"],
  ")": ["(", ")"],
  b: ["(", ")"],
  "[": ["[", "]"],
  "]": ["[", "]"],
  "{": ["{", "}"],
  "}": ["{", "}"],
  B: ["{", "}"],
  "<": ["<", ">"],
  ">": ["<", ">"],
};

/**
 * The span [from, to) a text object names around the cursor: `inner` is i (the inside), else a
 * (with the word's blank after it, the quotes, the brackets). w, W, a quote (" ' `) or a bracket
 * (( ) b [ ] { } B < >); null when the cursor is in no such object.
 */
export function textObject(lines: readonly string[], at: Pos, inner: boolean, kind: string): { from: Pos; to: Pos } | null {
  const text = lines[at.line] ?? "";
  if (kind === "w" || kind === "W") return word(text, at, inner, kind === "W");
  if (kind === '"' || kind === "'" || kind === "`") return quoted(text, at, inner, kind);
  const pair = PAIRS[kind];
  return pair ? bracketed(lines, at, inner, pair) : null;
}

function word(text: string, at: Pos, inner: boolean, big: boolean): { from: Pos; to: Pos } | null {
  if (text === "") return null;
  const kind = (i: number) => {
    const c = charClass(text[i]);
    return big && c !== 0 ? 1 : c;
  };
  const here = kind(at.col);
  let from = at.col;
  let to = at.col + 1;
  while (from > 0 && kind(from - 1) === here) from--;
  while (to < text.length && kind(to) === here) to++;
  if (!inner) {
    // aw: the word and the blanks after it (before it, when none follow); on blanks, they and the next word.
    if (here === 0) {
      const next = kind(to);
      while (to < text.length && kind(to) === next) to++;
    } else if (to < text.length && kind(to) === 0) {
      while (to < text.length && kind(to) === 0) to++;
    } else {
      while (from > 0 && kind(from - 1) === 0) from--;
    }
  }
  return { from: { line: at.line, col: from }, to: { line: at.line, col: to } };
}

function quoted(text: string, at: Pos, inner: boolean, quote: string): { from: Pos; to: Pos } | null {
  const marks = [...text].flatMap((c, i) => (c === quote && text[i - 1] !== "\\" ? [i] : []));
  for (let i = 0; i + 1 < marks.length; i += 2) {
    const open = marks[i] ?? 0;
    const close = marks[i + 1] ?? 0;
    // The pair the cursor is in, or else the first after it on the line, as vim takes.
    if (close < at.col) continue;
    if (inner) return { from: { line: at.line, col: open + 1 }, to: { line: at.line, col: close } };
    let end = close + 1;
    while (end < text.length && /\s/.test(text[end] ?? "")) end++;
    return { from: { line: at.line, col: open }, to: { line: at.line, col: end } };
  }
  return null;
}

function bracketed(lines: readonly string[], at: Pos, inner: boolean, [open, close]: readonly [string, string]): { from: Pos; to: Pos } | null {
  const text = lines.join("\n");
  const cursor = offsetOf(lines, at);
  let start = -1;
  for (let i = text[cursor] === close ? cursor - 1 : cursor, depth = 0; i >= 0; i--) {
    if (text[i] === close && i !== cursor) depth++;
    else if (text[i] === open) {
      if (depth === 0) {
        start = i;
        break;
      }
      depth--;
    }
  }
  if (start < 0) return null;
  let end = -1;
  for (let i = start + 1, depth = 0; i < text.length; i++) {
    if (text[i] === open) depth++;
    else if (text[i] === close) {
      if (depth === 0) {
        end = i;
        break;
      }
      depth--;
    }
  }
  if (end < 0) return null;
  return inner ? { from: posOf(lines, start + 1), to: posOf(lines, end) } : { from: posOf(lines, start), to: posOf(lines, end + 1) };
}

/**
 * J: `count` lines (two at least) from `line` joined into one, each joined line's leading blanks
 * made one space (none before a `)` or after a line ending in a blank, none for an empty line);
 * the cursor on the last join. Null on the last line.
 */
export function joined(lines: readonly string[], line: number, count: number): { lines: string[]; line: number; col: number } | null {
  const last = Math.min(lines.length - 1, line + Math.max(2, count) - 1);
  if (last === line) return null;
  let text = lines[line] ?? "";
  let col = 0;
  for (let i = line + 1; i <= last; i++) {
    const next = (lines[i] ?? "").trimStart();
    const space = next === "" || next.startsWith(")") || /\s$/.test(text) || text === "" ? "" : " ";
    col = text.length;
    text = text + space + next;
  }
  return { lines: [...lines.slice(0, line), text, ...lines.slice(last + 1)], line, col };
}
