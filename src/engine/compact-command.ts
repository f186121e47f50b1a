import { UserError } from "../errors.ts";
import type { ModelSource } from "../model/resolved.ts";
import type { Compaction } from "./compaction.ts";

/** A /compact stopped before its summary was kept: the conversation is as it was. */
export class CompactCancelled extends UserError {
  constructor() {
    super("the compaction was cancelled: the conversation is as it was", 2);
  }
}

/** What /compact needs of its session. */
export type CompactHost = {
  compaction: Compaction;
  models: ModelSource;
  /** The session's model ref (null: the default). */
  model(): string | null;
  /** The summary kept now, if any. */
  summary(): string | null;
  /** Runs work after the turns before it (the session's turn queue). */
  enqueue<T>(work: () => Promise<T>): Promise<T>;
};

/**
 * /compact (a prompt's action, run in the turn queue) and `_lembas/session/compact` (queued after
 * the turns before it): the history summarised on request. The session is busy meanwhile, and a
 * cancel (session/cancel, the terminal's Esc) stops the summary call.
 */
export class CompactCommand {
  private abort: AbortController | null = null;

  constructor(private readonly host: CompactHost) {}

  /** Whether a compaction is waiting or running. */
  get busy(): boolean {
    return this.abort !== null;
  }

  /** Queued after the turns before it (the caller refuses it while the session works). */
  queued(): Promise<{ summary: string }> {
    const abort = new AbortController();
    this.abort = abort;
    return this.host.enqueue(() => this.run(abort));
  }

  /** Compacts now, from within the turn queue. */
  now(): Promise<{ summary: string }> {
    const abort = new AbortController();
    this.abort = abort;
    return this.run(abort);
  }

  /** Stops the compaction waiting or running, if any: it throws {@link CompactCancelled}. */
  cancel(): void {
    this.abort?.abort();
  }

  private async run(abort: AbortController): Promise<{ summary: string }> {
    try {
      if (abort.signal.aborted) throw new CompactCancelled();
      const model = await this.host.models.resolve(this.host.model());
      await this.host.compaction.summarise(model, abort.signal, { auto: false });
    } catch (error) {
      // The summary call stopped by the cancel: nothing was kept.
      if (abort.signal.aborted) throw new CompactCancelled();
      throw error;
    } finally {
      if (this.abort === abort) this.abort = null;
    }
    const summary = this.host.summary();
    if (!summary) throw new UserError("there is nothing to compact yet", 2);
    return { summary };
  }
}
