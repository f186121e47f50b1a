import type { Mode } from "../config/schema.ts";
import { matchesKey } from "./kit.ts";

/** A second Ctrl-C within this long of the first, on an empty composer, quits. */
export const QUIT_WINDOW_MS = 2_000;
const MODES: readonly Mode[] = ["plan", "manual", "edit", "auto"];

/** The mode after `mode` in Shift+Tab's cycle. */
export function nextMode(mode: Mode): Mode {
  return MODES[(MODES.indexOf(mode) + 1) % MODES.length] ?? "edit";
}

/** What the keys that mean the same wherever focus is need of the screen. */
export type KeySurface = {
  /** What has the panel: a card, a picker or a form, or nothing (the composer has focus). */
  panel(): "card" | "other" | null;
  composerText(): string;
  clearComposer(): void;
  /** The composer's completion list is open (Esc closes it, not the turn). */
  completing(): boolean;
  busy(): boolean;
  interrupt(): void;
  /** Ctrl-C on a running turn: interrupts it, or first asks when it is not the person's (a prompt from the web). */
  interruptAsked?(): void;
  quit(): void;
  cycleMode(): void;
  suspend(): void;
  /** Opens the rewind picker (Esc twice on an empty composer between turns). */
  rewind(): void;
  /** Opens the reverse search of the project's earlier prompts (Ctrl+R). */
  searchPrompts(): void;
  say(message: string): void;
  /** The composer is in vim's insert mode: Esc is its (to normal mode), not an interrupt. */
  vimInsert?(): boolean;
};

/**
 * Esc interrupts the running turn; Ctrl-C interrupts it too (the draft stays), and between turns
 * clears the composer, and on an empty one twice quits (on a card it interrupts the turn waiting
 * on it); Ctrl-D on an empty composer quits; Shift+Tab cycles the mode; Ctrl-Z suspends; Ctrl+R
 * searches the earlier prompts; Esc twice on an empty composer between turns opens the rewind
 * picker. Anything else goes on to what has focus.
 */
export class GlobalKeys {
  private lastCtrlC: number | null = null;
  private lastEsc: number | null = null;

  constructor(
    private readonly screen: KeySurface,
    private readonly now: () => number = Date.now,
  ) {}

  handle(data: string): { consume: true } | undefined {
    const panel = this.screen.panel();
    if (matchesKey(data, "ctrl+c")) return this.ctrlC(panel);
    if (matchesKey(data, "ctrl+d")) {
      if (panel || this.screen.composerText() !== "") return undefined;
      this.screen.quit();
      return { consume: true };
    }
    // Vim's insert mode takes Esc to normal mode: not an interrupt.
    if (matchesKey(data, "escape") && !panel && this.screen.vimInsert?.()) return undefined;
    // Two presses read at once (a loaded machine, a paste of keys) arrive as one chunk.
    if (matchesKey(data, "escape") || data === "\x1b\x1b") return this.escape(data, panel);
    if (matchesKey(data, "ctrl+r") && !panel) {
      this.screen.searchPrompts();
      return { consume: true };
    }
    if (matchesKey(data, "shift+tab") && !panel) {
      this.screen.cycleMode();
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+z")) {
      this.screen.suspend();
      return { consume: true };
    }
    return undefined;
  }

  /**
   * Esc (or two read as one chunk) over the composer: a running turn is interrupted; between
   * turns, twice on an empty composer opens the rewind picker. With a panel or a completion list
   * open, it goes on to them. A layer over the composer that takes Esc for itself hooks here.
   */
  escape(data: string, panel: "card" | "other" | null): { consume: true } | undefined {
    if (panel || this.screen.completing()) return undefined;
    if (this.screen.busy()) {
      this.screen.interrupt();
      return { consume: true };
    }
    if (this.screen.composerText() !== "") return undefined;
    return this.escIdle(data === "\x1b\x1b");
  }

  /** Esc on an empty composer between turns: the second within the window opens the rewind picker. */
  private escIdle(twice: boolean): undefined {
    const now = this.now();
    if (twice || (this.lastEsc !== null && now - this.lastEsc < QUIT_WINDOW_MS)) {
      this.lastEsc = null;
      this.screen.rewind();
    } else this.lastEsc = now;
    return undefined;
  }

  private ctrlC(panel: "card" | "other" | null): { consume: true } | undefined {
    // On a card, Ctrl-C interrupts the turn that waits on it (Esc answers the card): the card goes with it.
    if (panel === "card" && this.screen.busy()) {
      this.screen.interrupt();
      return { consume: true };
    }
    if (panel) return undefined;
    // A running turn is stopped first, as Esc does; the draft stays, and quitting takes two more.
    if (this.screen.busy()) {
      if (this.screen.interruptAsked) this.screen.interruptAsked();
      else this.screen.interrupt();
      this.lastCtrlC = null;
      return { consume: true };
    }
    if (this.screen.composerText() !== "") {
      this.screen.clearComposer();
      this.lastCtrlC = null;
      return { consume: true };
    }
    const now = this.now();
    if (this.lastCtrlC !== null && now - this.lastCtrlC < QUIT_WINDOW_MS) this.screen.quit();
    else {
      this.lastCtrlC = now;
      this.screen.say("press Ctrl-C again to quit");
    }
    return { consume: true };
  }
}
