import type { TerminalHandover } from "./external-editor.ts";
import type { TUI } from "./kit.ts";
import type { Notifier } from "./notify.ts";

/**
 * The terminal given away (Ctrl-Z, Ctrl+G's editor) and taken back: the screen, and focus
 * reporting, whose reports would reach the other program as keys (and which it may turn off).
 */
export class ScreenHandover implements TerminalHandover {
  private away = false;
  /** Counts each giving away and back: only the latest decides whether the terminal is away. */
  private handovers = 0;

  constructor(
    private readonly tui: TUI,
    private readonly notifier: Notifier,
  ) {}

  /** Whether another program has the terminal: a Ctrl-C typed then is that program's, not lembas's. */
  get givenAway(): boolean {
    return this.away;
  }

  stop(): void {
    this.away = true;
    this.handovers++;
    this.notifier.stop();
    this.tui.stop();
  }

  start(): void {
    this.tui.start();
    this.notifier.start();
    // The Ctrl-C that ended the editor reached lembas too, and its SIGINT may be dispatched after
    // the editor's exit: it is still the editor's. A Ctrl-C typed from now on is a key (raw mode).
    const handover = ++this.handovers;
    setTimeout(() => {
      if (handover === this.handovers) this.away = false;
    }, 0);
  }

  requestRender(force?: boolean): void {
    this.tui.requestRender(force);
  }

  /** Ctrl-Z: the shell gets the terminal until `fg`, and the screen is drawn whole again. */
  suspend(): void {
    this.stop();
    process.once("SIGCONT", () => {
      this.start();
      this.requestRender(true);
    });
    process.kill(process.pid, "SIGSTOP");
  }
}
