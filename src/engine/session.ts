import type { EventOf, SessionBus } from "../bus/index.ts";
import type { Paths } from "../config/paths.ts";
import { type Config, Effort, Mode } from "../config/schema.ts";
import { errorMessage, UserError } from "../errors.ts";
import type { RetryPolicy } from "../model/retry.ts";
import type { ProtectedPaths } from "../project/protected.ts";
import type { Db } from "../store/db.ts";
import { appendMessage, deleteMessagesFrom, listMessages } from "../store/messages.ts";
import { type SessionRow, updateSession } from "../store/sessions.ts";
import { getHold, holderAlive } from "../store/holds.ts";
import { acceptTurn, getTurn, listTurns, setTurnState } from "../store/turns.ts";
import { inputSchema, type TodoItem, type Tool, type ToolContext } from "../tools/tool.ts";
import { toChatMessages } from "./history.ts";
import { systemPrompt } from "./instructions.ts";
import { type Interaction, nobody } from "./interaction.ts";
import { DEFAULT_CONTEXT, type ModelSource, type ResolvedModel } from "./models.ts";
import { lowerMode, modeAction } from "./permissions.ts";
import { parseStored, type StoredMessage, type UserRecord } from "./records.ts";
import { applySettings } from "./settings.ts";
import { cleanTitle, modelSummary, modelTitle, provisionalTitle } from "./side-calls.ts";
import { runToolCall } from "./tool-runner.ts";
import { callModel, type StopReason, skippedResults } from "./turn.ts";
import { restoreTurn, TurnUndo, type Undone } from "./undo.ts";

export type SessionDeps = {
  db: Db;
  paths: Paths;
  config: Config;
  models: ModelSource;
  tools: readonly Tool[];
  protectedPaths: ProtectedPaths;
  retry?: Partial<RetryPolicy>;
  /** Model calls a turn may make before it stops with max_turn_requests. */
  maxSteps?: number;
  onFileUse?: (root: string, path: string) => void;
};

export type Attachment = { name: string; mimeType: string; size: number; path: string };

export type PromptInput = {
  /** What the model is sent. */
  text: string;
  /** What the person typed, when it differs (a command's name). */
  display?: string;
  turnId?: string;
  attachments?: Attachment[];
  /** A model for this prompt only (a command's); the session's comes back afterwards. */
  model?: string;
  effort?: Effort;
};

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
};

/** A message about to be stored: a StoredMessage but for its seq, which the store gives it. */
type NewMessage = StoredMessage extends infer M ? (M extends StoredMessage ? Omit<M, "seq"> : never) : never;

export type SessionStatus = { busy: boolean; turnId: string | null; queued: string[]; lastTurnId: string | null };

/** Used by the automatic compaction: the share of the context window that triggers it. */
const COMPACT_AT = 0.8;
/** A stored mode or effort this version does not know reads as the default (made once: these are hot). */
const MODE_OR_EDIT = Mode.catch("edit");
const EFFORT_OR_MEDIUM = Effort.catch("medium");
const DEFAULT_MAX_STEPS = 100;

export function newTurnId(): string {
  return `turn_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
}

/**
 * One session: its settings, its conversation in the store, and a queue of turns run one at a
 * time. Everything it does is told on its bus; whoever can answer for the person is `interaction`.
 */
export class Session {
  interaction: Interaction | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private running: { turnId: string; abort: AbortController } | null = null;
  private waiting: string[] = [];
  private pending = new Map<string, Promise<TurnAnswer>>();
  private inbox: { text: string; id?: string }[] = [];
  private readonly allowed = new Set<string>();
  private todos: TodoItem[] = [];
  private readonly reads = new Set<string>();
  private lastPromptTokens = 0;
  private compacting = false;
  private refsCache: string[] = [];
  private closed = false;
  /** Waiting turns whose request was cancelled: they answer cancelled when their time comes. */
  private readonly dropped = new Set<string>();
  /** Aborted when the session closes: work that is not a turn (the title call) stops too. */
  private readonly closing = new AbortController();

  constructor(
    private row: SessionRow,
    readonly bus: SessionBus,
    private readonly deps: SessionDeps,
    /** The highest mode this session may be in (remote.max_mode for the link's sessions). */
    readonly maxMode: Mode = "auto",
    /**
     * The conversation as stored, kept as it is written: given when the caller knows it (a session
     * just made has none), else read from the store on first use.
     */
    private history: StoredMessage[] | null = null,
  ) {}

  get id(): string {
    return this.row.id;
  }
  get root(): string {
    return this.row.root;
  }
  get cwd(): string {
    return this.row.cwd;
  }
  get title(): string {
    return this.row.title;
  }
  get mode(): Mode {
    return MODE_OR_EDIT.parse(this.row.mode);
  }
  get model(): string | null {
    return this.row.model;
  }
  get effort(): Effort {
    return EFFORT_OR_MEDIUM.parse(this.row.effort);
  }
  get busy(): boolean {
    return this.running !== null || this.waiting.length > 0 || this.compacting;
  }
  get todoList(): readonly TodoItem[] {
    return this.todos;
  }

  /** The session event: what a client that starts listening now needs first. */
  info(): EventOf<"session"> {
    return { type: "session", id: this.id, root: this.root, cwd: this.cwd, title: this.title, mode: this.mode, model: this.model, effort: this.effort };
  }

  status(): SessionStatus {
    const done = listTurns(this.deps.db, this.id).filter((t) => t.state === "done");
    return {
      busy: this.busy,
      turnId: this.running?.turnId ?? null,
      queued: [...this.waiting],
      lastTurnId: done.at(-1)?.turnId ?? null,
    };
  }

  /** The conversation as stored, oldest first. */
  messages(): StoredMessage[] {
    this.history ??= listMessages(this.deps.db, this.id)
      .map(parseStored)
      .filter((m): m is StoredMessage => m !== null);
    return [...this.history];
  }

  /** Stores a message of the conversation and keeps it in the history in memory. */
  private append(message: NewMessage): void {
    const { seq } = appendMessage(this.deps.db, this.id, message.role, message.body, message.turnId);
    this.remember({ ...message, seq });
  }

  /**
   * Adds a stored message to the history in memory. A seq that does not follow the last one known
   * means someone else wrote to the session meanwhile (a process that took over a hold gone
   * stale): the history is read again from the store on next use.
   */
  private remember(message: StoredMessage): void {
    if (!this.history) return;
    if (message.seq !== (this.history.at(-1)?.seq ?? 0) + 1) {
      this.history = null;
      return;
    }
    this.history.push(message);
  }

  /**
   * Runs a prompt as a turn, after the turns before it. A turn id already accepted does not run
   * again: the caller gets the original's answer, when it is done.
   */
  prompt(input: PromptInput): Promise<TurnAnswer> {
    const turnId = input.turnId ?? newTurnId();
    return this.admit(turnId, () => this.runTurn(turnId, input));
  }

  /**
   * Admits a turn: one already accepted (here or by another process) gets the original's answer;
   * a new one is accepted in the store and queued after the turns before it.
   */
  private admit(turnId: string, run: () => Promise<TurnAnswer>): Promise<TurnAnswer> {
    const pending = this.pending.get(turnId);
    if (pending) return pending;
    const { accepted, turn } = acceptTurn(this.deps.db, this.id, turnId);
    if (!accepted) return turn.state === "done" ? Promise.resolve(turn.answer as TurnAnswer) : this.awaitElsewhere(turnId);
    this.waiting.push(turnId);
    const answer = this.enqueue(run);
    this.pending.set(turnId, answer);
    answer.then(
      () => this.pending.delete(turnId),
      () => this.pending.delete(turnId),
    );
    return answer;
  }

  /** A queued turn's time has come: false (and its answer kept as cancelled) when it must not run. */
  private start(turnId: string): boolean {
    this.waiting = this.waiting.filter((id) => id !== turnId);
    if (!this.closed && !this.dropped.delete(turnId)) return true;
    this.finish(turnId, { turnId, stopReason: "cancelled" });
    return false;
  }

  /** Tells whoever listens something the person should know (a command file that was skipped). */
  notice(message: string, level: "info" | "warn" = "warn"): void {
    this.bus.emit({ type: "notice", message, level });
  }

  /** Files the person attached (@mentions): the model has seen them, as if it had read them. */
  markRead(paths: readonly string[]): void {
    for (const path of paths) this.reads.add(path);
  }

  /**
   * Runs an action (/compact, /undo, /plan without a task) as a turn of its own: after the turns
   * before it, its turn id deduplicated like a prompt's, its answer kept. A UserError it throws
   * becomes the answer's error.
   */
  action(turnId: string, run: () => Promise<Record<string, unknown>> | Record<string, unknown>): Promise<TurnAnswer> {
    return this.admit(turnId, async (): Promise<TurnAnswer> => {
      if (!this.start(turnId)) return { turnId, stopReason: "cancelled" };
      this.bus.emit({ type: "task", state: "start", turnId });
      let result: TurnAnswer;
      try {
        result = { turnId, stopReason: "end_turn", meta: await run() };
      } catch (error) {
        if (!(error instanceof UserError)) throw error;
        result = { turnId, stopReason: "end_turn", error: error.message };
      } finally {
        this.bus.emit({ type: "task", state: "end", turnId, stopReason: "end_turn" });
      }
      this.finish(turnId, result);
      return result;
    });
  }

  /** Stops the running turn: the stream and its tools at once; what was said is kept. */
  cancel(): void {
    this.running?.abort.abort();
  }

  /**
   * Cancels one turn: the running one is stopped; a waiting one is dropped (it answers cancelled
   * without running). Other turns are left alone.
   */
  cancelTurn(turnId: string): void {
    if (this.running?.turnId === turnId) this.running.abort.abort();
    else if (this.waiting.includes(turnId)) this.dropped.add(turnId);
  }

  /** Cancels the running turn and every waiting one (they answer cancelled without running). */
  close(): void {
    this.closed = true;
    this.closing.abort();
    this.cancel();
  }

  /** A message for the running turn, given to the model at its next step. */
  steer(text: string, id?: string): { queued: number } {
    if (!this.running) throw new UserError("nothing is running in this session: send it as a prompt instead", 2);
    this.inbox.push({ text, ...(id ? { id } : {}) });
    this.bus.emit({ type: "inbox", count: this.inbox.length, texts: this.inbox.map((m) => m.text) });
    return { queued: this.inbox.length };
  }

  setMode(requested: Mode): Mode {
    const mode = lowerMode(requested, this.maxMode);
    if (mode === this.mode) return mode;
    this.row = { ...this.row, mode };
    updateSession(this.deps.db, this.id, { mode });
    this.bus.emit({ type: "mode", mode });
    return mode;
  }

  /** Changes the model and/or effort (validated); emits the model event when something changed. */
  async configure(change: { model?: string; effort?: Effort }): Promise<{ model: string | null; effort: Effort }> {
    let model = this.row.model;
    if (change.model !== undefined) model = (await this.deps.models.resolve(change.model)).ref;
    const effort = change.effort ?? this.effort;
    if (model !== this.row.model || effort !== this.row.effort) {
      this.row = { ...this.row, model, effort };
      updateSession(this.deps.db, this.id, { model, effort });
      const connection = model ? (await this.deps.models.resolve(model)).connection : null;
      this.bus.emit({ type: "model", ref: model, effort, connection });
    }
    return { model, effort };
  }

  setTitle(title: string): string {
    const clean = cleanTitle(title);
    updateSession(this.deps.db, this.id, { title: clean });
    this.titled(clean);
    return clean;
  }

  /** The title, stored already, becomes the session's, and is said. */
  private titled(title: string): void {
    this.row = { ...this.row, title };
    this.bus.emit({ type: "title", id: this.id, title });
  }

  /** Summarises the history so far; the model then sees the summary instead. Refused while a turn runs. */
  async compact(): Promise<{ summary: string }> {
    if (this.busy) throw new UserError("the session is working: compact it when the turn has ended", 2);
    this.compacting = true;
    return this.enqueue(async () => {
      try {
        return await this.compactNow();
      } finally {
        this.compacting = false;
      }
    });
  }

  /** Compacts now (from within the turn queue: /compact). */
  async compactNow(): Promise<{ summary: string }> {
    const model = await this.deps.models.resolve(this.row.model);
    return { summary: await this.summarise(model, new AbortController().signal, false) };
  }

  /**
   * Undoes the last turn: its files back byte for byte, its messages gone from what the model sees.
   * Null when there is no turn to undo. Refused while a turn runs.
   */
  undo(): Undone | null {
    if (this.busy) throw new UserError("the session is working: undo when the turn has ended", 2);
    return this.undoNow();
  }

  /** Undoes the last turn now (from within the turn queue: /undo). */
  undoNow(): Undone | null {
    // Read afresh: what undo deletes must be what the store holds.
    this.history = null;
    const messages = this.messages();
    const lastUser = messages.findLast((m) => m.role === "user" && !m.body.steer);
    if (!lastUser || lastUser.role !== "user") return null;
    const turnId = lastUser.turnId;
    const restored = turnId ? restoreTurn(this.deps.db, this.id, turnId, this.root) : { files: [], skipped: [] };
    deleteMessagesFrom(this.deps.db, this.id, lastUser.seq);
    this.history = null;
    if (this.row.summarySeq !== null && this.row.summarySeq >= lastUser.seq) {
      this.row = { ...this.row, summary: null, summarySeq: null };
      updateSession(this.deps.db, this.id, { summary: null, summarySeq: null });
    }
    return { prompt: lastUser.body.display ?? lastUser.body.text, files: restored.files, skipped: restored.skipped };
  }

  /** Waits for every queued turn (and the title call after the first) to end. */
  async idle(): Promise<void> {
    for (;;) {
      const chain = this.chain;
      await chain;
      if (chain === this.chain) return;
    }
  }

  private enqueue<T>(run: () => Promise<T>): Promise<T> {
    const result = this.chain.then(run, run);
    this.chain = result.catch(() => undefined);
    return result;
  }

  /**
   * A turn accepted by another process: wait for its answer in the store. A holder that died
   * leaves it unfinished, so its turns are settled as interrupted; and the wait ends with the session.
   */
  private async awaitElsewhere(turnId: string): Promise<TurnAnswer> {
    for (;;) {
      const turn = getTurn(this.deps.db, this.id, turnId);
      if (!turn || this.closed) return { turnId, stopReason: "cancelled", interrupted: true };
      if (turn.state === "done") return turn.answer as TurnAnswer;
      const hold = getHold(this.deps.db, this.id);
      if (!hold || hold.pid === process.pid || !holderAlive(hold)) {
        // Not ours (ours are in `pending`), and nobody alive runs it: it will never finish.
        const answer: TurnAnswer = { turnId, stopReason: "cancelled", interrupted: true };
        setTurnState(this.deps.db, this.id, turnId, "done", answer);
        return answer;
      }
      await Bun.sleep(100);
    }
  }

  private async runTurn(turnId: string, input: PromptInput): Promise<TurnAnswer> {
    if (!this.start(turnId)) return { turnId, stopReason: "cancelled" };
    const abort = new AbortController();
    this.running = { turnId, abort };
    let firstPrompt = false;
    let outcome: { stopReason: StopReason; error?: string };
    const undo = new TurnUndo(this.deps.db, this.id, turnId, this.root, this.deps.paths.stateDir);
    // Whatever fails (the store, a listener), the turn ends with an answer and the session is free.
    try {
      firstPrompt = this.beginTurn(turnId, input);
      outcome = await this.loop(turnId, input, abort.signal, undo);
    } catch (error) {
      outcome = { stopReason: abort.signal.aborted ? "cancelled" : "end_turn", error: errorMessage(error) };
    }
    undo.finish();
    if (outcome.error) this.bus.emit({ type: "error", message: outcome.error, turnId });
    const unsent = this.inbox.splice(0).map((m) => m.text);
    const answer: TurnAnswer = {
      turnId,
      stopReason: outcome.stopReason,
      ...(unsent.length > 0 ? { unsent } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
    };
    this.running = null;
    this.finish(turnId, answer);
    this.bus.emit({ type: "done", turnId, stopReason: answer.stopReason, ...(unsent.length > 0 ? { unsent } : {}) });
    this.bus.emit({ type: "task", state: "end", turnId, stopReason: answer.stopReason });
    if (firstPrompt && !outcome.error) void this.enqueue(() => this.nameSession(input.display ?? input.text));
    return answer;
  }

  /** Marks the turn running, says so, and stores the person's message. True for the session's first prompt. */
  private beginTurn(turnId: string, input: PromptInput): boolean {
    const user: UserRecord = {
      text: input.text,
      ...(input.display !== undefined ? { display: input.display } : {}),
      ...(input.attachments?.length ? { attachments: input.attachments } : {}),
    };
    const firstPrompt = !this.row.title;
    const title = firstPrompt ? cleanTitle(provisionalTitle(input.display ?? input.text)) : null;
    this.bus.emit({ type: "task", state: "start", turnId });
    // One commit for the turn's start: its state, the person's message and a first title.
    const { seq } = this.deps.db
      .transaction(() => {
        setTurnState(this.deps.db, this.id, turnId, "running");
        const row = appendMessage(this.deps.db, this.id, "user", user, turnId);
        if (title) updateSession(this.deps.db, this.id, { title });
        return row;
      })
      .immediate();
    this.remember({ seq, role: "user", body: user, turnId });
    const attachments = input.attachments?.map(({ name, mimeType, size }) => ({ name, mimeType, size }));
    this.bus.emit({ type: "prompt", text: input.display ?? input.text, turnId, ...(attachments?.length ? { attachments } : {}) });
    if (title) this.titled(title);
    return firstPrompt;
  }

  /** Stores a turn's answer; a store that fails here is said, and the caller still gets the answer. */
  private finish(turnId: string, answer: TurnAnswer): void {
    try {
      setTurnState(this.deps.db, this.id, turnId, "done", answer);
    } catch (error) {
      this.bus.emit({ type: "notice", level: "warn", message: `the turn's answer could not be stored: ${errorMessage(error)}` });
    }
  }

  private async loop(turnId: string, input: PromptInput, signal: AbortSignal, undo: TurnUndo): Promise<{ stopReason: StopReason; error?: string }> {
    const model = await this.deps.models.resolve(input.model ?? this.row.model);
    const effort = input.effort ?? this.effort;
    const maxSteps = this.deps.maxSteps ?? DEFAULT_MAX_STEPS;
    void this.refreshRefs();
    for (let step = 1; step <= maxSteps; step++) {
      if (signal.aborted) return { stopReason: "cancelled" };
      await this.autoCompact(model, signal);
      this.takeInbox(turnId);
      this.bus.emit({ type: "step", turnId, step });
      const tools = this.toolsFor(this.mode);
      const outcome = await callModel({
        bus: this.bus,
        turnId,
        step,
        model,
        effort,
        messages: this.chatMessages(model),
        tools: tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: inputSchema(t) } })),
        signal,
        ...(this.deps.retry ? { retry: this.deps.retry } : {}),
        onUsage: (promptTokens, completionTokens) => {
          this.lastPromptTokens = promptTokens;
          this.bus.emit({ type: "usage", promptTokens, completionTokens, contextLimit: contextLimit(model) });
        },
      });
      const { record } = outcome;
      if (record.text || record.reasoning || record.toolCalls.length > 0) this.append({ role: "assistant", body: record, turnId });
      if (outcome.kind !== "reply") {
        for (const r of skippedResults(record.toolCalls, "Not run: the reply was cut off.")) this.append({ role: "tool", body: r, turnId });
        if (outcome.kind === "cancelled") return { stopReason: "cancelled" };
        return { stopReason: "end_turn", error: outcome.error.message };
      }
      if (record.toolCalls.length === 0) {
        if (this.inbox.length > 0 && outcome.finish === "end_turn") continue;
        return { stopReason: outcome.finish === "tool_calls" ? "end_turn" : outcome.finish };
      }
      const byName = new Map(tools.map((t) => [t.name, t] as const));
      for (const [i, call] of record.toolCalls.entries()) {
        if (signal.aborted) {
          for (const r of skippedResults(record.toolCalls.slice(i), "Not run: the turn was cancelled.")) this.append({ role: "tool", body: r, turnId });
          return { stopReason: "cancelled" };
        }
        const result = await runToolCall(call, {
          sessionId: this.id,
          bus: this.bus,
          tools: byName,
          mode: this.mode,
          root: this.root,
          protectedPaths: this.deps.protectedPaths,
          allowed: this.allowed,
          interaction: this.interaction ?? nobody("nobody can approve it in this session"),
          signal,
          context: (callId) => this.toolContext(callId, signal, undo, model),
        });
        this.append({ role: "tool", body: undo.annotate(result), turnId });
      }
      if (signal.aborted) return { stopReason: "cancelled" };
    }
    return { stopReason: "max_turn_requests" };
  }

  /** The tools the model is given in a mode: none that the mode refuses outright. */
  private toolsFor(mode: Mode): Tool[] {
    return this.deps.tools.filter((t) => {
      if (t.name === "plan_submit") return mode === "plan";
      return modeAction(mode, t.permission) !== "deny";
    });
  }

  private chatMessages(model: ResolvedModel) {
    const system = systemPrompt({
      root: this.root,
      cwd: this.cwd,
      mode: this.mode,
      configDir: this.deps.paths.configDir,
      personality: this.deps.config.personality,
      personalityCustom: this.deps.config.personality_custom,
      instructions: this.deps.config.instructions,
    });
    return toChatMessages(system, this.messages(), { summary: this.row.summary, summarySeq: this.row.summarySeq, vision: model.vision });
  }

  private takeInbox(turnId: string): void {
    if (this.inbox.length === 0) return;
    const taken = this.inbox.splice(0);
    for (const m of taken) this.append({ role: "user", body: { text: m.text, steer: true } satisfies UserRecord, turnId });
    const ids = taken.flatMap((m) => (m.id ? [m.id] : []));
    this.bus.emit({ type: "steered", texts: taken.map((m) => m.text), ...(ids.length > 0 ? { ids } : {}) });
  }

  private async autoCompact(model: ResolvedModel, signal: AbortSignal): Promise<void> {
    if (this.lastPromptTokens < contextLimit(model) * COMPACT_AT) return;
    this.lastPromptTokens = 0;
    try {
      await this.summarise(model, signal, true);
    } catch (error) {
      this.bus.emit({ type: "notice", level: "warn", message: `could not compact the history: ${errorMessage(error)}` });
    }
  }

  /** Asks the model for a summary of the history and keeps it in the store; the full history stays. */
  private async summarise(model: ResolvedModel, signal: AbortSignal, auto: boolean): Promise<string> {
    const stored = this.messages();
    const last = stored.at(-1);
    if (!last) throw new UserError("there is nothing to compact yet", 2);
    const summary = await modelSummary(model, stored, { summary: this.row.summary, summarySeq: this.row.summarySeq }, signal);
    this.row = { ...this.row, summary, summarySeq: last.seq };
    updateSession(this.deps.db, this.id, { summary, summarySeq: last.seq });
    this.bus.emit({ type: "compacted", summary, auto });
    return summary;
  }

  /** After the first prompt: a short model call names the session. A failure keeps the provisional title. */
  private async nameSession(prompt: string): Promise<void> {
    try {
      const model = await this.deps.models.resolve(this.row.model);
      const title = await modelTitle(model, prompt, AbortSignal.any([AbortSignal.timeout(30_000), this.closing.signal]));
      if (title) this.setTitle(title);
    } catch {
      // the provisional title stays
    }
  }

  private async refreshRefs(): Promise<void> {
    try {
      this.refsCache = await this.deps.models.refs();
    } catch {
      // the settings tool lists what it last knew
    }
  }

  private toolContext(callId: string, signal: AbortSignal, undo: TurnUndo, model: ResolvedModel): ToolContext {
    return {
      sessionId: this.id,
      callId,
      root: this.root,
      cwd: this.cwd,
      signal,
      vision: model.vision,
      progress: (output) => this.bus.emit({ type: "progress", callId, output }),
      beforeChange: async (path) => undo.beforeChange(path),
      aroundCommand: (run) => undo.aroundCommand(run, callId),
      markRead: (path) => {
        this.reads.add(path);
        this.deps.onFileUse?.(this.root, path);
      },
      wasRead: (path) => this.reads.has(path),
      ask: (questions, why) =>
        (this.interaction ?? nobody("")).question({ sessionId: this.id, callId, questions, ...(why ? { why } : {}) }, signal),
      submitPlan: async (path, text) => {
        const outcome = await (this.interaction ?? nobody("")).plan({ sessionId: this.id, callId, path, text }, signal);
        if (outcome.outcome !== "approve") return outcome;
        const mode = lowerMode(outcome.mode, this.maxMode);
        if (mode === "plan") return { outcome: "dismissed" };
        this.setMode(mode);
        return { outcome: "approve", mode: mode === "auto" ? "edit" : mode };
      },
      setTodos: (todos) => {
        this.todos = todos;
        this.bus.emit({ type: "todos", todos });
      },
      settings: {
        get: () => ({ model: this.row.model, effort: this.effort, mode: this.mode, models: this.refsCache }),
        set: (change) => applySettings(this, change, callId, signal),
      },
    };
  }
}

export function contextLimit(model: ResolvedModel): number {
  return model.contextLength ?? DEFAULT_CONTEXT;
}
