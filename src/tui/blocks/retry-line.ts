import { counted } from "../../plural.ts";
import type { Theme } from "../theme.ts";
import { CachedBlock, hanging } from "./lines.ts";
import { plain } from "./plain.ts";

/** How a run of retries ended: the server answered, the turn gave up, or the person stopped it. */
export type RetryOutcome = "answered" | "failed" | "stopped";

/**
 * A model request the server refused and lembas sends again: one line, redrawn in place at each
 * retry ("trying again in 2 s, retry 2 of 8") and ended with what came of it, so that a flaky
 * server is one line in the transcript and not one per try.
 */
export class RetryBlock extends CachedBlock {
  private said = "";
  private reason = "";
  private attempt = 0;
  private outcome: RetryOutcome | null = null;
  /** The turn's error, when the retries ended in one: it is the line's last word, said nowhere else. */
  private error = "";

  constructor(private readonly theme: Theme) {
    super();
  }

  get live(): boolean {
    return this.outcome === null;
  }

  /** One more retry: `message` says why, the wait and which retry of how many. */
  retry(message: string, attempt: number, reason: string): void {
    this.said = plain(message);
    this.reason = plain(reason);
    this.attempt = attempt;
    this.invalidate();
  }

  end(outcome: RetryOutcome): void {
    if (this.outcome) return;
    this.outcome = outcome;
    this.invalidate();
  }

  /** The retries ended in the turn's error (it says how many tries): the line becomes it. */
  failed(error: string): void {
    if (this.outcome) return;
    this.error = plain(error);
    this.end("failed");
  }

  protected draw(width: number): string[] {
    const t = this.theme;
    const retries = counted(this.attempt, "retry", "retries");
    if (this.error) return ["", ...hanging(this.error, width, "✗ ", "  ").map(t.error)];
    if (this.outcome === "answered") return ["", ...hanging(`${this.reason}; it answered after ${retries}`, width, "· ", "  ").map(t.dim)];
    const text = this.outcome === "failed" ? `${this.reason}; gave up after ${retries}` : this.outcome === "stopped" ? `${this.reason}; stopped after ${retries}` : this.said;
    return ["", ...hanging(text, width, "! ", "  ").map(t.warn)];
  }
}
