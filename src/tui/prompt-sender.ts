import type { Session, TurnAnswer } from "../engine/session.ts";
import { errorMessage } from "../errors.ts";
import { actionResult } from "../transcript/action-result.ts";
import { keepUnsentPrompts } from "./prompt-history.ts";
import type { PastedImage, TuiRuntime } from "./runtime.ts";

/** What the sender needs of the screen. */
export type SenderHost = {
  line(text: string, level: "info" | "error"): void;
  render(): void;
  /** Whether the terminal is quitting: what a turn left unsent is then kept, not sent. */
  quitting(): boolean;
};

/**
 * Sends the person's prompts, one turn each; what a turn ended before taking in (text entered
 * while it ran) is sent as the next one, or, when the terminal is quitting, kept in the prompt
 * history (↑ brings it back next time) and counted for the way out.
 */
export class PromptSender {
  private readonly sending = new Set<Promise<void>>();
  /** What the person entered that the quit left unsent; `kept` once in the prompt history. */
  readonly notSent: { text: string; kept: boolean }[] = [];

  constructor(
    private readonly runtime: TuiRuntime,
    private readonly host: SenderHost,
  ) {}

  send(text: string, images: readonly PastedImage[] = [], context?: string): void {
    const sending = this.turn(text, images, context);
    this.sending.add(sending);
    void sending.finally(() => this.sending.delete(sending));
  }

  /** Once the session is closed: every turn sent has answered, and what it left unsent is kept. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.sending]);
  }

  private async turn(text: string, images: readonly PastedImage[], context?: string): Promise<void> {
    const session = this.runtime.session;
    let answer: TurnAnswer | null = null;
    try {
      answer = await this.runtime.submit(text, images, context);
    } catch (error) {
      this.host.line(errorMessage(error), "error");
    }
    // An action's result (compact, undo, plan, review) in one line; a turn's error was said by its event.
    const result = answer ? actionResult(answer) : null;
    if (result) this.host.line(result.line, result.failed ? "error" : "info");
    this.host.render();
    const unsent = answer?.unsent ?? [];
    if (unsent.length === 0) return;
    if (this.host.quitting()) return this.keep(session, unsent);
    this.send(unsent.join("\n\n"));
  }

  private keep(session: Session, texts: readonly string[]): void {
    try {
      keepUnsentPrompts(this.runtime.ctx.db(), session, texts);
      this.notSent.push(...texts.map((text) => ({ text, kept: true })));
    } catch {
      this.notSent.push(...texts.map((text) => ({ text, kept: false })));
    }
  }
}
