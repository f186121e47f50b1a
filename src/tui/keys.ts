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
  quit(): void;
  cycleMode(): void;
  suspend(): void;
  /** Opens the rewind picker (Esc twice on an empty composer between turns). */
  rewind(): void;
  say(message: string): void;
  /** The composer is in vim's insert mode: Esc is its (to normal mode), not an interrupt. */
  vimInsert?(): boolean;
};

/**
 * Esc interrupts the running turn; Ctrl-C clears the composer, and on an empty one twice quits (on
 * a card it interrupts the turn waiting on it); Ctrl-D on an empty composer quits; Shift+Tab
 * cycles the mode; Ctrl-Z suspends; Esc twice on an empty composer between turns opens the rewind
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
    if (matchesKey(data, "escape") && !panel && this.screen.vimInsert?.()) return undefined;
    if (matchesKey(data, "escape") && !panel && !this.screen.completing() && this.screen.busy()) {
      this.screen.interrupt();
      return { consume: true };
    }
    // Two presses read at once (a loaded machine, a paste of keys) arrive as one chunk.
    const twice = data === "\x1b\x1b";
    if ((twice || matchesKey(data, "escape")) && !panel && !this.screen.completing() && !this.screen.busy() && this.screen.composerText() === "") return this.escIdle(twice);
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
