import { type Atom, atomAt, charClass, lineMotion, onAtomStart, widened, wordMotion } from "./vim-motions.ts";
import { type FindKind, findChar, joined, reversed, textObject } from "./vim-objects.ts";

export type VimMode = "normal" | "insert";

/**
 * The composer's text as lines, and the cursor in it (a column is a UTF-16 index, as the editor's);
 * `atoms` are the spans that act as one character (a folded paste's marker).
 */
export type VimBuffer = { lines: string[]; line: number; col: number; atoms?: readonly Atom[] };

/**
 * What a key does to the composer: `pass` hands it to the editor as it is (insert mode);
 * `stay` takes it with nothing to change (a count, an operator waiting for its motion, a key
 * normal mode has no use for); `move` puts the cursor; `edit` changes the text as one undo step;
 * `undo` takes back the last step; `send` is Enter; `up` and `down` go on to the editor's earlier
 * prompts (k on the first line, j on the last).
 */
export type VimAction =
  | { kind: "pass" }
  | { kind: "stay" }
  | { kind: "move"; line: number; col: number }
  | { kind: "edit"; buffer: VimBuffer }
  | { kind: "undo"; count: number }
  | { kind: "send" }
  | { kind: "up" }
  | { kind: "down" };

type Register = { text: string; linewise: boolean };
type Range = { from: Pos; to: Pos; linewise: false } | { first: number; last: number; linewise: true };
type Pos = { line: number; col: number };

const MOTIONS = new Set(["h", "l", "j", "k", "w", "b", "e", "0", "^", "$"]);
/** Motions that jump (a line, a character found): G, and ; and , which repeat the last find. */
const JUMPS = new Set(["G", ";", ","]);
/** Keys that wait for one more: gg, f F t T and r take a character. */
const PREFIXES = new Set(["g", "f", "F", "t", "T", "r"]);

/** Where a jump lands; a linewise one takes whole lines under an operator, an inclusive one the character it lands on. */
type Jump = { to: Pos; linewise: boolean; inclusive: boolean };
/**
 * Vim's keys for the composer, on its text: a pure state machine (mode, count, the operator
 * waiting for its motion, the register) that says what each key does; src/tui/composer.ts applies
 * it. Normal mode: h j k l, w b e, 0 ^ $, gg G, f F t T with ; and , x, r, J, dd, D, C, cw, dw
 * (and d/c/y with any of these motions, or a text object: iw aw i" a" i( a( and the other
 * brackets; yy, cc), i a I A o O, u, p P, counts; Esc goes to normal mode, Enter sends. The
 * last change's keys are repeated with `.` by src/tui/vim-repeat.ts.
 */
export class Vim {
  mode: VimMode = "insert";
  private count = "";
  private operator: { name: "d" | "c" | "y"; count: number } | null = null;
  private register: Register | null = null;
  /** A key waiting for the next (g, f, r; i or a after an operator), with the count typed before it. */
  private awaiting: { key: string; count: number; given: boolean } | null = null;
  private lastFind: { kind: FindKind; char: string } | null = null;

  /** Whether a command is under way (a count, an operator or a prefix waiting for its next key). */
  get pending(): boolean {
    return this.count !== "" || this.operator !== null || this.awaiting !== null;
  }

  /** Esc: insert mode goes to normal, the cursor onto the character it was after; normal forgets a pending operator. */
  escape(buffer: VimBuffer): VimAction {
    this.reset();
    if (this.mode === "normal") return { kind: "stay" };
    this.mode = "normal";
    return { kind: "move", ...onAtomStart(buffer.atoms ?? [], { line: buffer.line, col: Math.max(0, buffer.col - 1) }) };
  }

  /** One key (a character, or a named key's text) in normal mode; in insert mode every key passes. */
  key(key: string, buffer: VimBuffer): VimAction {
    if (this.mode === "insert") return { kind: "pass" };
    if (this.awaiting) {
      const prefix = this.awaiting;
      this.awaiting = null;
      return this.awaited(prefix, key, buffer);
    }
    if (/^[1-9]$/.test(key) || (key === "0" && this.count !== "")) {
      this.count += key;
      return { kind: "stay" };
    }
    const given = this.count !== "";
    const count = Math.max(1, Number(this.count || "1"));
    this.count = "";
    if (PREFIXES.has(key) || (this.operator && (key === "i" || key === "a"))) {
      if (key === "r" && this.operator) return this.cancel();
      this.awaiting = { key, count, given };
      return { kind: "stay" };
    }
    if (this.operator) return this.withOperator(this.operator, key, count, buffer, given);
    if (JUMPS.has(key)) return this.jumpTo(this.jump(key, count, given, buffer), buffer);
    if (MOTIONS.has(key)) return this.motion(key, count, buffer);
    return this.command(key, count, buffer);
  }

  private reset(): void {
    this.count = "";
    this.operator = null;
    this.awaiting = null;
  }

  private cancel(): VimAction {
    this.reset();
    return { kind: "stay" };
  }

  /** The key after a prefix: gg, a find's character, r's replacement, a text object after d, c or y. */
  private awaited(prefix: { key: string; count: number; given: boolean }, key: string, buffer: VimBuffer): VimAction {
    if (key.length !== 1 || key === "\x1b" || key === "\r") return this.cancel();
    if (prefix.key === "r") return this.replace(key, prefix.count, buffer);
    const op = this.operator;
    if (op && (prefix.key === "i" || prefix.key === "a")) {
      this.operator = null;
      const span = textObject(buffer.lines, buffer, prefix.key === "i", key);
      return span ? this.operate(op.name, { ...span, linewise: false }, buffer) : { kind: "stay" };
    }
    const jump = prefix.key === "g" ? (key === "g" ? this.jump("gg", prefix.count, prefix.given, buffer) : null) : this.find(prefix.key as FindKind, key, prefix.count, buffer);
    if (!op) return this.jumpTo(jump, buffer);
    this.operator = null;
    return jump ? this.operateJump(op.name, jump, buffer) : { kind: "stay" };
  }

  /** G, gg (to line `count` when one is given), and ; and , (the last f, F, t or T again, or the other way). */
  private jump(key: string, count: number, given: boolean, buffer: VimBuffer): Jump | null {
    const { lines } = buffer;
    if (key === "G" || key === "gg") {
      const line = given ? Math.min(lines.length, count) - 1 : key === "G" ? lines.length - 1 : 0;
      return { to: { line, col: firstNonBlank(lines[line] ?? "") }, linewise: true, inclusive: false };
    }
    const last = this.lastFind;
    if (!last) return null;
    const kind = key === "," ? reversed(last.kind) : last.kind;
    const col = findChar(lines[buffer.line] ?? "", buffer.col, kind, last.char, count, true);
    return col === null ? null : { to: { line: buffer.line, col }, linewise: false, inclusive: kind === "f" || kind === "t" };
  }

  /** f, F, t or T with `char`, remembered for ; and ,. */
  private find(kind: FindKind, char: string, count: number, buffer: VimBuffer): Jump | null {
    this.lastFind = { kind, char };
    const col = findChar(buffer.lines[buffer.line] ?? "", buffer.col, kind, char, count);
    return col === null ? null : { to: { line: buffer.line, col }, linewise: false, inclusive: kind === "f" || kind === "t" };
  }

  private jumpTo(jump: Jump | null, buffer: VimBuffer): VimAction {
    return jump ? { kind: "move", ...clampNormal(buffer.lines, jump.to, buffer.atoms) } : { kind: "stay" };
  }

  /** d, c or y over a jump: whole lines for G and gg, up to and with the character found for f and t. */
  private operateJump(name: "d" | "c" | "y", jump: Jump, buffer: VimBuffer): VimAction {
    const { line, col } = buffer;
    if (jump.linewise) return this.operate(name, { first: Math.min(line, jump.to.line), last: Math.max(line, jump.to.line), linewise: true }, buffer);
    const before = jump.to.col < col;
    const to = { line, col: jump.to.col + (jump.inclusive && !before ? 1 : 0) };
    return this.operate(name, { from: before ? to : { line, col }, to: before ? { line, col } : to, linewise: false }, buffer);
  }

  /** r: `count` characters from the cursor become `char`; nothing when the line has fewer. */
  private replace(char: string, count: number, buffer: VimBuffer): VimAction {
    const { lines, line, col } = buffer;
    const text = lines[line] ?? "";
    if (col + count > text.length || atomAt(buffer.atoms ?? [], line, col)) return { kind: "stay" };
    const changed = text.slice(0, col) + char.repeat(count) + text.slice(col + count);
    return { kind: "edit", buffer: { lines: lines.with(line, changed), line, col: col + count - 1 } };
  }

  private motion(key: string, count: number, buffer: VimBuffer): VimAction {
    const { lines, line } = buffer;
    if (key === "k" && line === 0) return { kind: "up" };
    if (key === "j" && line === lines.length - 1) return { kind: "down" };
    const atoms = buffer.atoms ?? [];
    const to = key === "w" || key === "b" || key === "e" ? wordMotion(lines, buffer, key, count, atoms) : lineMotion(lines, buffer, key, count, atoms);
    return { kind: "move", ...clampNormal(lines, to, atoms) };
  }

  private command(key: string, count: number, buffer: VimBuffer): VimAction {
    const { lines, line, col } = buffer;
    const text = lines[line] ?? "";
    switch (key) {
      case "d":
      case "c":
      case "y":
        this.operator = { name: key, count };
        return { kind: "stay" };
      case "x":
        return text === "" ? { kind: "stay" } : this.operate("d", { from: { line, col }, to: lineMotion(lines, buffer, "l", count, buffer.atoms), linewise: false }, buffer);
      case "D":
        return this.operate("d", { from: { line, col }, to: { line, col: text.length }, linewise: false }, buffer);
      case "C":
        return this.operate("c", { from: { line, col }, to: { line, col: text.length }, linewise: false }, buffer);
      case "i":
        return this.insert({ line, col });
      case "a":
        return this.insert(lineMotion(lines, buffer, "l", 1, buffer.atoms));
      case "I":
        return this.insert({ line, col: firstNonBlank(text) });
      case "A":
        return this.insert({ line, col: text.length });
      case "o":
      case "O": {
        const at = key === "o" ? line + 1 : line;
        this.mode = "insert";
        return { kind: "edit", buffer: { lines: [...lines.slice(0, at), "", ...lines.slice(at)], line: at, col: 0 } };
      }
      case "p":
      case "P":
        return this.put(key === "p", count, buffer);
      case "J": {
        const made = joined(lines, line, count);
        return made ? { kind: "edit", buffer: made } : { kind: "stay" };
      }
      case "u":
        return { kind: "undo", count };
      case "\r":
        return { kind: "send" };
      default:
        return { kind: "stay" };
    }
  }

  private insert(at: Pos): VimAction {
    this.mode = "insert";
    return { kind: "move", ...at };
  }

  /** The key after d, c or y: the same again (dd) takes whole lines, a motion the text it crosses. */
  private withOperator(op: { name: "d" | "c" | "y"; count: number }, key: string, count: number, buffer: VimBuffer, given: boolean): VimAction {
    this.operator = null;
    const n = op.count * count;
    const { lines, line, col } = buffer;
    if (JUMPS.has(key)) {
      const jump = this.jump(key, n, given || op.count > 1, buffer);
      return jump ? this.operateJump(op.name, jump, buffer) : { kind: "stay" };
    }
    if (key === op.name) return this.operate(op.name, { first: line, last: Math.min(lines.length - 1, line + n - 1), linewise: true }, buffer);
    if (key === "j" || key === "k") {
      const other = key === "j" ? Math.min(lines.length - 1, line + n) : Math.max(0, line - n);
      return this.operate(op.name, { first: Math.min(line, other), last: Math.max(line, other), linewise: true }, buffer);
    }
    if (!MOTIONS.has(key)) return { kind: "stay" };
    const here = { line, col };
    // cw on a word changes to its end, as ce does (vim's own exception); dw stops at the line's end.
    const motion = op.name === "c" && key === "w" && charClass(lines[line]?.[col]) !== 0 ? "e" : key;
    const atoms = buffer.atoms ?? [];
    let to: Pos = motion === "w" || motion === "b" || motion === "e" ? wordMotion(lines, here, motion, n, atoms) : lineMotion(lines, here, motion, n, atoms);
    if (motion === "w" && to.line > line) to = { line, col: (lines[line] ?? "").length };
    // e and $ take the character they land on.
    if (motion === "e" || motion === "$") to = { line: to.line, col: Math.min((lines[to.line] ?? "").length, to.col + 1) };
    const before = to.line < line || (to.line === line && to.col < col);
    return this.operate(op.name, { from: before ? to : here, to: before ? here : to, linewise: false }, buffer);
  }

  private operate(name: "d" | "c" | "y", range: Range, buffer: VimBuffer): VimAction {
    const { lines } = buffer;
    if (range.linewise) {
      const taken = lines.slice(range.first, range.last + 1);
      this.register = { text: taken.join("\n"), linewise: true };
      if (name === "y") return { kind: "move", line: range.first, col: buffer.line === range.first ? buffer.col : 0 };
      if (name === "c") {
        this.mode = "insert";
        return { kind: "edit", buffer: { lines: [...lines.slice(0, range.first), "", ...lines.slice(range.last + 1)], line: range.first, col: 0 } };
      }
      const rest = [...lines.slice(0, range.first), ...lines.slice(range.last + 1)];
      const kept = rest.length > 0 ? rest : [""];
      const line = Math.min(range.first, kept.length - 1);
      return { kind: "edit", buffer: { lines: kept, line, col: firstNonBlank(kept[line] ?? "") } };
    }
    // An atom is taken whole: a cut into a paste's marker would send its broken text instead of the paste.
    const { from, to } = widened(buffer.atoms ?? [], range.from, range.to);
    const head = (lines[from.line] ?? "").slice(0, from.col);
    const tail = (lines[to.line] ?? "").slice(to.col);
    const taken =
      from.line === to.line
        ? (lines[from.line] ?? "").slice(from.col, to.col)
        : [(lines[from.line] ?? "").slice(from.col), ...lines.slice(from.line + 1, to.line), (lines[to.line] ?? "").slice(0, to.col)].join("\n");
    this.register = { text: taken, linewise: false };
    if (name === "y") return { kind: "move", ...from };
    const changed = [...lines.slice(0, from.line), head + tail, ...lines.slice(to.line + 1)];
    if (name === "c") {
      this.mode = "insert";
      return { kind: "edit", buffer: { lines: changed, ...from } };
    }
    return { kind: "edit", buffer: { lines: changed, ...clampNormal(changed, from) } };
  }

  /** p after the cursor (below the line for whole lines), P before; the cursor on the last character put (the first line's start). */
  private put(after: boolean, count: number, buffer: VimBuffer): VimAction {
    const reg = this.register;
    if (!reg) return { kind: "stay" };
    const { lines, line, col } = buffer;
    const text = Array.from({ length: count }, () => reg.text).join(reg.linewise ? "\n" : "");
    if (reg.linewise) {
      const at = after ? line + 1 : line;
      const put = text.split("\n");
      return { kind: "edit", buffer: { lines: [...lines.slice(0, at), ...put, ...lines.slice(at)], line: at, col: firstNonBlank(put[0] ?? "") } };
    }
    const current = lines[line] ?? "";
    const at = after && current !== "" ? Math.min(current.length, atomAt(buffer.atoms ?? [], line, col)?.to ?? col + 1) : col;
    const put = text.split("\n");
    const head = current.slice(0, at);
    const tail = current.slice(at);
    const last = put.length - 1;
    const made = put.map((part, i) => (i === 0 ? head : "") + part + (i === last ? tail : ""));
    const endLine = line + last;
    const endCol = (last === 0 ? head.length : 0) + (put[last] ?? "").length - 1;
    return { kind: "edit", buffer: { lines: [...lines.slice(0, line), ...made, ...lines.slice(line + 1)], line: endLine, col: Math.max(0, endCol) } };
  }
}

/** Normal mode's cursor sits on a character (an atom's first): never past the line's last one. */
function clampNormal(lines: readonly string[], at: Pos, atoms: readonly Atom[] = []): Pos {
  const line = Math.max(0, Math.min(lines.length - 1, at.line));
  const length = (lines[line] ?? "").length;
  return onAtomStart(atoms, { line, col: Math.max(0, Math.min(length - 1, at.col)) });
}

function firstNonBlank(text: string): number {
  const found = text.search(/\S/);
  return found === -1 ? Math.max(0, text.length) : found;
}
