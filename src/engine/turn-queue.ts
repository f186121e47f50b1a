import { z } from "zod";
import { errorMessage, UserError } from "../errors.ts";
import type { Db } from "../store/db.ts";
import { turnAnswered, turnBegan, turnEnded } from "../store/checkpoint.ts";
import { heldElsewhere } from "../store/placement.ts";
import { acceptTurn, forgetTurn, getTurn, setTurnState } from "../store/turns.ts";
import type { StopReason } from "./turn.ts";

/** The most turns that may wait in one session behind the running one: a flood of prompts is refused, not held. */
export const MAX_WAITING = 8;

/** A new turn refused because the session's queue is full: nothing of it was accepted. */
export class QueueFull extends UserError {
  constructor(what = `${MAX_WAITING} prompts`) {
    super(`${what} are already waiting in this session: wait for them or cancel`, 2);
  }
}

/** A turn id made here: for a turn typed in a terminal, or a client that gave none. */
export function newTurnId(): string {
  return `turn_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
}

/** How a turn ended, as its caller is answered (and a re-send of its turn id is, later). */
export type TurnAnswer = {
  turnId: string;
  stopReason: StopReason;
  /** Steering messages the turn ended before taking in. */
  unsent?: string[];
  /** Why the turn failed (the model unreachable, …), a sentence. */
  error?: string;
  /** The process running the turn died before it ended. */
  interrupted?: boolean;
  /** What an action (a command that sends nothing to the model) answers: summary, undone, mode, message. */
  meta?: Record<string, unknown>;
  /** The command the prompt was (kept with the answer, so that a re-sent turn is answered alike). */
  command?: string;
  /** The turn was an action: its error is the request's. */
  action?: boolean;
  /** It never started: its process let go of the session first (quit, stop). Sent again, it runs once. */
  unstarted?: boolean;
};

/** How a turn ended, as its `done` and `task` end events both say it: "error" for one that failed with nothing else to stop it. */
export function endReason(answer: Pick<TurnAnswer, "stopReason" | "error">): StopReason | "error" {
  return answer.error && answer.stopReason === "end_turn" ? "error" : answer.stopReason;
}

let answerSchema: z.ZodType<TurnAnswer> | null = null;

/** A stored answer as it is read back (made on first use: the editor's first answer builds none). */
function storedAnswer(turnId: string, raw: unknown): TurnAnswer {
  answerSchema ??= z.object({
    turnId: z.string(),
    stopReason: z.enum(["end_turn", "max_turn_requests", "max_tokens", "cancelled", "refusal"]),
    unsent: z.array(z.string()).optional(),
    error: z.string().optional(),
    interrupted: z.boolean().optional(),
    meta: z.record(z.string(), z.unknown()).optional(),
    command: z.string().optional(),
    action: z.boolean().optional(),
  });
  const parsed = answerSchema.safeParse(raw);
  return parsed.success ? parsed.data : { turnId, stopReason: "end_turn", error: `the answer of turn ${turnId} kept on the device could not be read` };
}

/** A turn admitted: its caller's ticket, to run it once or abandon it. */
export type Ticket = {
  run(work: () => Promise<TurnAnswer>): Promise<TurnAnswer>;
  /** The turn could not be prepared: it is forgotten, and a re-send meanwhile gets this error. */
  abandon(error: unknown): void;
};

/**
 * A session's turn admission and queue: turn ids accepted in the store (a known one is answered,
 * never run again), turns run one at a time in the order they came, and what happens to the ones
 * that never start. The one place a turn is let in, for every front end.
 */
export class TurnQueue {
  private chain: Promise<unknown> = Promise.resolve();
  private waitingIds: string[] = [];
  private readonly pending = new Map<string, Promise<TurnAnswer>>();
  /** Waiting turns whose request was cancelled: they answer cancelled when their time comes. */
  private readonly dropped = new Set<string>();
  private closed = false;
  private deleted = false;
  private letIn = new AbortController();

  constructor(
    private readonly db: Db,
    private readonly sessionId: string,
    /** Tells the person something went wrong that the turn cannot answer for. */
    private readonly warn: (message: string) => void,
  ) {}

  /** The turns accepted and not started yet, oldest first. */
  get waiting(): readonly string[] {
    return this.waitingIds;
  }

  /**
   * Looks a turn id up before anything is done for it. A known one (running, waiting, done, here or
   * in another process) gets its answer; a new one is accepted in the store and its caller given a
   * ticket. A turn another process accepted and died before starting is taken over: it runs here.
   */
  async admit(turnId: string): Promise<{ known: Promise<TurnAnswer> } | { ticket: Ticket }> {
    for (;;) {
      const pending = this.pending.get(turnId);
      if (pending) return { known: pending };
      // A new turn past the bound is refused before it is accepted; a known one is still answered.
      if (this.waitingIds.length >= MAX_WAITING && !getTurn(this.db, this.sessionId, turnId)) throw new QueueFull();
      let { accepted, turn } = acceptTurn(this.db, this.sessionId, turnId);
      if (!accepted && turn.state !== "done" && !this.heldElsewhere()) {
        // Accepted earlier, and nobody alive will run it: one that never started is forgotten and
        // accepted afresh; one that was running ended with its process.
        if (turn.state === "running") return { known: Promise.resolve(this.interrupted(turnId)) };
        forgetTurn(this.db, this.sessionId, turnId);
        ({ accepted, turn } = acceptTurn(this.db, this.sessionId, turnId));
      }
      if (accepted) return { ticket: this.ticket(turnId) };
      if (turn.state === "done") return { known: Promise.resolve(storedAnswer(turnId, turn.answer)) };
      const elsewhere = await this.awaitElsewhere(turnId);
      if (elsewhere !== "forgotten") return { known: Promise.resolve(elsewhere) };
    }
  }

  /**
   * A queued turn's time has come: null when it may run, else its answer. One whose request was
   * cancelled answers cancelled; one the queue closed on (a stop, a release) never started, and is
   * forgotten: it answers unstarted, so that whoever sent it sends it again.
   */
  start(turnId: string): TurnAnswer | null {
    this.waitingIds = this.waitingIds.filter((id) => id !== turnId);
    if (this.dropped.delete(turnId)) {
      const answer: TurnAnswer = { turnId, stopReason: "cancelled" };
      this.finish(turnId, answer);
      return answer;
    }
    if (!this.closed) return null;
    this.forget(turnId);
    return this.deleted ? { turnId, stopReason: "cancelled" } : { turnId, stopReason: "cancelled", unstarted: true };
  }

  /** Stores a turn's answer; a store that fails here is said, and the caller still gets the answer. */
  finish(turnId: string, answer: TurnAnswer): void {
    try {
      setTurnState(this.db, this.sessionId, turnId, "done", answer);
    } catch (error) {
      this.warn(`the turn's answer could not be stored: ${errorMessage(error)}`);
    }
    turnAnswered(this.db);
  }

  /** A waiting turn is dropped: it answers cancelled without running. False when it is not waiting. */
  drop(turnId: string): boolean {
    if (!this.waitingIds.includes(turnId)) return false;
    this.dropped.add(turnId);
    return true;
  }

  /** No turn waiting starts any more (each is forgotten when its time comes). */
  /** No turn starts any more; with `deleted`, the waiting ones answer cancelled (there is nothing to send them again to). */
  close(opts: { deleted?: boolean } = {}): void {
    this.closed = true;
    this.deleted ||= opts.deleted === true;
  }

  /** Aborted when the next turn is let in: work that gives way to the person (the title call) listens. */
  get nextTurn(): AbortSignal {
    return this.letIn.signal;
  }

  /** Runs work after everything queued before it. */
  enqueue<T>(run: () => Promise<T>): Promise<T> {
    const result = this.chain.then(run, run);
    this.chain = result.catch(() => undefined);
    return result;
  }

  /** Waits until nothing is queued any more. */
  async idle(): Promise<void> {
    for (;;) {
      const chain = this.chain;
      await chain;
      if (chain === this.chain) return;
    }
  }

  /**
   * A turn accepted here: its place in the queue is kept from now (the work it will run comes when
   * the caller has prepared it), and a re-send meanwhile waits for it.
   */
  private ticket(turnId: string): Ticket {
    this.waitingIds.push(turnId);
    this.letIn.abort();
    this.letIn = new AbortController();
    const work = Promise.withResolvers<() => Promise<TurnAnswer>>();
    const answer = this.enqueue(async () => (await work.promise)());
    this.pending.set(turnId, answer);
    turnBegan(this.db);
    const release = () => {
      this.pending.delete(turnId);
      turnEnded(this.db);
    };
    answer.then(release, release);
    let used = false;
    return {
      run: (run) => {
        if (used) throw new Error(`turn ${turnId} was run already`);
        used = true;
        work.resolve(run);
        return answer;
      },
      abandon: (error) => {
        if (used) return;
        used = true;
        this.waitingIds = this.waitingIds.filter((id) => id !== turnId);
        this.forget(turnId);
        work.resolve(() => Promise.reject(error));
      },
    };
  }

  /** Whether another live process holds the session (and so runs the turns it accepted). */
  private heldElsewhere(): boolean {
    return heldElsewhere(this.db, this.sessionId) !== null;
  }

  /** Forgets a turn that never started, so that a re-send runs it once; a failing store is said. */
  private forget(turnId: string): void {
    try {
      forgetTurn(this.db, this.sessionId, turnId);
    } catch (error) {
      this.warn(`turn ${turnId} could not be forgotten: ${errorMessage(error)}`);
    }
  }

  /** A turn that was running when its process ended: done, as cancelled by the interruption. */
  private interrupted(turnId: string): TurnAnswer {
    const answer: TurnAnswer = { turnId, stopReason: "cancelled", interrupted: true };
    setTurnState(this.db, this.sessionId, turnId, "done", answer);
    return answer;
  }

  /**
   * A turn accepted by another process: wait for its answer in the store. A holder that died
   * leaves it unfinished: one it never started is forgotten ("forgotten": the caller takes it
   * over), a running one is settled as interrupted; and the wait ends with the queue.
   */
  private async awaitElsewhere(turnId: string): Promise<TurnAnswer | "forgotten"> {
    for (;;) {
      const turn = getTurn(this.db, this.sessionId, turnId);
      if (this.closed) return { turnId, stopReason: "cancelled", interrupted: true };
      if (!turn) return "forgotten";
      if (turn.state === "done") return storedAnswer(turnId, turn.answer);
      if (!this.heldElsewhere()) {
        if (turn.state === "running") return this.interrupted(turnId);
        forgetTurn(this.db, this.sessionId, turnId);
        return "forgotten";
      }
      await Bun.sleep(100);
    }
  }
}
