/**
 * Vim's `.`: the last change as it was typed, to be typed again — the normal-mode keys of the
 * command that made it (`dw`, `3x`, `ciw`) and, when it began an insert, what was typed there
 * until Esc. src/tui/vim-editor.ts records into it and replays it.
 */
export type Change = { keys: readonly string[]; typed: readonly string[] };

export class ChangeRecorder {
  /** The keys of the command under way (a count, an operator, its motion). */
  private keys: string[] = [];
  private last: { keys: string[]; typed: string[] } | null = null;
  /** What the insert the last change began has had typed so far; null once it ended. */
  private inserting: string[] | null = null;
  /** Set while `.` types the change again: what it types is not a new change. */
  replaying = false;

  /**
   * A key of normal mode went to vim. `done`: the command is complete (nothing waits for a
   * motion or a character); `changed`: it changed the text or began an insert.
   */
  key(key: string, done: boolean, changed: boolean, inserting: boolean): void {
    if (this.replaying) return;
    this.keys.push(key);
    if (!done) return;
    if (changed) {
      this.last = { keys: this.keys, typed: [] };
      this.inserting = inserting ? this.last.typed : null;
    }
    this.keys = [];
  }

  /** A key typed in insert mode: part of the change that began the insert. */
  typed(data: string): void {
    if (!this.replaying) this.inserting?.push(data);
  }

  /** Esc ended the insert (or the command under way). */
  ended(): void {
    if (this.replaying) return;
    this.inserting = null;
    this.keys = [];
  }

  get lastChange(): Change | null {
    return this.last;
  }
}
