import type { TerminalHandover } from "./external-editor.ts";
import type { TUI } from "./kit.ts";
import type { Notifier } from "./notify.ts";

/**
 * The terminal given away (Ctrl-Z, Ctrl+G's editor) and taken back: the screen, and focus
 * reporting, whose reports would reach the other program as keys (and which it may turn off).
 */
export class ScreenHandover implements TerminalHandover {
  private away = false;

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
    this.notifier.stop();
    this.tui.stop();
  }

  start(): void {
    this.tui.start();
    this.notifier.start();
    this.away = false;
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
