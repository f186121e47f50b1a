import { Editor, matchesKey } from "./kit.ts";
import { Vim, type VimAction, type VimBuffer, type VimMode } from "./vim-keys.ts";
import { type Atom, onAtomStart } from "./vim-motions.ts";
import { ChangeRecorder } from "./vim-repeat.ts";

/**
 * What of pi-tui's Editor (pinned) the vim layer reads and writes: its text, its cursor and its
 * undo stack are private, and it has no public way to put the cursor. Checked when the layer is
 * made, so that a library that changed them fails at once and says so.
 */
type EditorInternals = {
  state: { lines: string[]; cursorLine: number; cursorCol: number };
  /** The folded pastes by id, whose markers ("[paste #1 +300 lines]") the editor expands when the text is sent. */
  pastes: Map<number, string>;
  undoStack: { stack: unknown[] };
  preferredVisualCol: number | null;
  snappedFromCursorCol: number | null;
  pushUndoSnapshot(): void;
  undo(): void;
  onChange?: (text: string) => void;
};

function internals(editor: Editor): EditorInternals {
  const inside = editor as unknown as Partial<EditorInternals>;
  if (!inside.state || !(inside.pastes instanceof Map) || !Array.isArray(inside.undoStack?.stack) || typeof inside.pushUndoSnapshot !== "function" || typeof inside.undo !== "function") {
    throw new Error("vim mode needs the editor of @earendil-works/pi-tui 1.6 (its text, cursor, pastes and undo stack); this version keeps them elsewhere");
  }
  return inside as EditorInternals;
}

/** A folded paste's marker, as pi-tui's editor writes it; one whose id is a paste it holds is one character to vim. */
const PASTE_MARKER = /\[paste #(\d+)( (\+\d+ lines|\d+ chars))?\]/g;

type KeyName = Parameters<typeof matchesKey>[1];
/** Normal mode's arrows (and Backspace) are its motions. */
const ARROWS: readonly (readonly [KeyName, string])[] = [["left", "h"], ["right", "l"], ["up", "k"], ["down", "j"], ["backspace", "h"]];

/**
 * Vim mode on the composer: the keys go through src/tui/vim.ts, whose moves and edits are applied
 * to the editor here (each edit one undo step; what is typed in one insert, with the change that
 * began it, is one step too, as in vim). `handle` says whether it took the key; what it leaves
 * goes to the editor as usual (insert mode's keys, Enter, Ctrl keys).
 */
export class VimEditor {
  private readonly vim = new Vim();
  private readonly repeat = new ChangeRecorder();
  private readonly inside: EditorInternals;
  /** The undo stack's length when this insert began, and whether a change began it (cw, o, …). */
  private insertMark = { length: 0, byEdit: false };

  constructor(
    private readonly editor: Editor,
    private readonly onMode: (mode: VimMode) => void,
  ) {
    this.inside = internals(editor);
    this.insertMark = { length: this.inside.undoStack.stack.length, byEdit: false };
  }

  get mode(): VimMode {
    return this.vim.mode;
  }

  /** A prompt was sent (the editor emptied its text and undo stack): the next one is typed in insert mode. */
  sent(): void {
    this.insertMark = { length: 0, byEdit: false };
    this.setMode("insert");
  }

  /** Esc, or a key in normal mode: true when it was taken; `rest` gets what follows a switch to insert mode in the same chunk. */
  handle(data: string, rest: (data: string) => void): boolean {
    // Esc and the next key read together (typed fast, a loaded machine) look like Alt+key: in vim they are Esc, then the key.
    const escThenKey = /^\x1b([\x20-\x7e])$/.exec(data)?.[1];
    if (escThenKey !== undefined && escThenKey !== "[" && escThenKey !== "O") {
      this.handle("\x1b", rest);
      if (!this.handle(escThenKey, rest)) rest(escThenKey);
      return true;
    }
    if (matchesKey(data, "escape")) {
      this.repeat.ended();
      const was = this.vim.mode;
      this.apply(this.vim.escape(this.buffer()));
      if (was === "insert") this.collapseInsert();
      this.onMode(this.vim.mode);
      return true;
    }
    if (this.vim.mode === "insert") {
      // Enter sends the prompt: it is no part of a change to repeat.
      if (!matchesKey(data, "enter")) this.repeat.typed(data);
      return false;
    }
    const arrow = ARROWS.find(([name]) => matchesKey(data, name));
    if (arrow) return this.key(arrow[1]);
    if (matchesKey(data, "enter")) return this.key("\r");
    // A chunk of printable keys (typed fast, or sent at once): each in turn, and the rest typed once one enters insert mode.
    // Other keys with control characters (Ctrl+A, Delete, a paste) do what they do in the editor.
    if (/[\x00-\x1f\x7f]/.test(data)) return false;
    const keys = [...data];
    for (let i = 0; i < keys.length; i++) {
      this.key(keys[i] ?? "");
      if (this.mode === "insert") {
        const left = keys.slice(i + 1).join("");
        if (left) rest(left);
        break;
      }
    }
    return true;
  }

  /** One key of normal mode; false for Enter (the composer sends), true otherwise. */
  private key(key: string): boolean {
    if (key === "." && !this.vim.pending) {
      this.again();
      return true;
    }
    const before = this.vim.mode;
    const action = this.vim.key(key, this.buffer());
    if (action.kind === "send") return false;
    this.repeat.key(key, !this.vim.pending, action.kind === "edit" || (before === "normal" && this.vim.mode === "insert"), this.vim.mode === "insert");
    this.apply(action);
    if (before === "normal" && this.vim.mode === "insert") {
      this.insertMark = { length: this.inside.undoStack.stack.length, byEdit: action.kind === "edit" };
      this.onMode("insert");
    }
    return true;
  }

  /** `.`: the last change typed again where the cursor is, its insert too (one undo step, as it was). */
  private again(): void {
    const last = this.repeat.lastChange;
    if (!last) return;
    this.repeat.replaying = true;
    try {
      for (const key of last.keys) this.key(key);
      if (this.vim.mode !== "insert") return;
      for (const chunk of last.typed) Editor.prototype.handleInput.call(this.editor, chunk);
      this.handle("\x1b", () => {});
    } finally {
      this.repeat.replaying = false;
    }
  }

  private setMode(mode: VimMode): void {
    if (this.vim.mode === mode) return;
    this.vim.mode = mode;
    this.onMode(mode);
  }

  private buffer(): VimBuffer {
    const { lines, cursorLine, cursorCol } = this.inside.state;
    return { lines: [...lines], line: cursorLine, col: cursorCol, atoms: this.atoms() };
  }

  /** The paste markers in the text, each one character to vim's motions and edits (as to the editor's Backspace). */
  private atoms(): Atom[] {
    const { pastes, state } = this.inside;
    if (pastes.size === 0) return [];
    return state.lines.flatMap((text, line) =>
      [...text.matchAll(PASTE_MARKER)].filter((m) => pastes.has(Number(m[1]))).map((m) => ({ line, from: m.index, to: m.index + m[0].length })),
    );
  }

  private apply(action: VimAction): void {
    const inside = this.inside;
    if (action.kind === "move") this.put(action.line, action.col);
    else if (action.kind === "edit") {
      inside.pushUndoSnapshot();
      inside.state.lines = action.buffer.lines;
      // Where the edit leaves the cursor, a marker's place in the new text: on its first character.
      const at = onAtomStart(this.atoms(), action.buffer);
      this.put(at.line, at.col);
      inside.onChange?.(inside.state.lines.join("\n"));
    } else if (action.kind === "undo") {
      for (let i = 0; i < action.count; i++) inside.undo();
      const { line, col, atoms = [] } = this.buffer();
      const at = onAtomStart(atoms, { line, col: Math.min(col, Math.max(0, (inside.state.lines[line] ?? "").length - 1)) });
      this.put(at.line, at.col);
    } else if (action.kind === "up" || action.kind === "down") {
      // k on the first line and j on the last reach the earlier prompts, as ↑ and ↓ do.
      const arrow = action.kind === "up" ? "\x1b[A" : "\x1b[B";
      Editor.prototype.handleInput.call(this.editor, arrow);
    }
  }

  private put(line: number, col: number): void {
    this.inside.state.cursorLine = line;
    this.inside.state.cursorCol = col;
    this.inside.preferredVisualCol = null;
    this.inside.snappedFromCursorCol = null;
  }

  /** What was typed in the insert just left is one undo step with the change that began it. */
  private collapseInsert(): void {
    const { stack } = this.inside.undoStack;
    const keep = this.insertMark.length + (this.insertMark.byEdit ? 0 : 1);
    if (stack.length > keep) stack.length = keep;
  }
}
