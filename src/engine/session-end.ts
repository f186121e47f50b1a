import { waitMs } from "../timing.ts";
import type { SessionHooks } from "./hook-set.ts";

/**
 * How long a session's SessionEnd hooks may run as it closes, whatever their own timeout: the
 * process that closes it (`lembas run` after its answer, `serve --stdio` whose editor closed its
 * stdin) waits no longer for them. Claude Code gives its SessionEnd hooks 1.5 s.
 */
export const SESSION_END_MS = 1_500;

/**
 * A session's SessionEnd hooks: run once, as it closes, for at most SESSION_END_MS; `stop` stops
 * them at once (their processes go as a cancelled hook's do), or before they start.
 */
export class SessionEnd {
  private readonly stopped = new AbortController();
  private begun = false;

  /** Runs them, unless they ran already or were stopped first; their end is awaited by the hooks' `idle`. */
  begin(hooks: SessionHooks | null, reason: "clear" | "other"): void {
    if (this.begun || this.stopped.signal.aborted || !hooks?.has("SessionEnd")) return;
    this.begun = true;
    void hooks.run("SessionEnd", "other", { reason }, AbortSignal.any([this.stopped.signal, AbortSignal.timeout(waitMs("SESSION_END_MS", SESSION_END_MS))]));
  }

  /** Whoever ends the process will not wait (a Ctrl-C once the answer is out): the hooks stop now. */
  stop(): void {
    this.stopped.abort();
  }
}
