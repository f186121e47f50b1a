import type { EventOf, SessionBus } from "../bus/index.ts";
import { EFFORTS, isOneOf, MODES } from "../config/key-values.ts";
import type { Effort, Mode } from "../config/mode-effort.ts";
import { errorMessage, UserError } from "../errors.ts";
import { storeFailure } from "../store/db.ts";
import { appendMessage, deleteMessagesFrom, listMessages } from "../store/messages.ts";
import { type SessionRow, updateSession } from "../store/sessions.ts";
import { listTurns, setTurnState } from "../store/turns.ts";
import type { TodoItem } from "../tools/tool.ts";
import { Jobs } from "../tools/jobs.ts";
import { CompactCancelled, CompactCommand } from "./compact-command.ts";
import { Compaction } from "./compaction.ts";
import type { Interaction } from "./interaction.ts";
import type { FileAccess } from "../tools/file-access.ts";
import { cappedMode, turnMode } from "./mode-cap.ts";
import { ReadLedger } from "./read-ledger.ts";
import { type NewMessage, parseStored, type StoredMessage } from "./records.ts";
import type { SessionMcp } from "./session-mcp.ts";
import type { SessionHooks } from "./hook-set.ts";
import { promptHooks } from "./turn-hooks.ts";
import { notify } from "./notify-hooks.ts";
import { SessionPrompt } from "./session-prompt.ts";
import { SessionEnd } from "./session-end.ts";
import { storeTurnStart, userRecord } from "./turn-start.ts";
import type { ActionRun, PromptInput, SessionDeps, SessionStatus, TurnTicket } from "./session-types.ts";
import { KnownModels } from "./settings.ts";
import { cleanTitle, nameSession, provisionalTitle } from "./side-calls.ts";
import { runSteps, type StepParts } from "./step-loop.ts";
import type { StopReason } from "./turn.ts";
import { endReason, newTurnId, type TurnAnswer, TurnQueue } from "./turn-queue.ts";
import { restoreTurn, TurnUndo, type Undone } from "./undo.ts";
import { type Restored, restoreTurnThrough } from "./undo-restore.ts";
import { leaveCode, pointOf, type RewindWhat, rewindCode, type Rewound } from "./rewind.ts";
import { startedUp } from "../jit-policy.ts";

export type { ActionRun, Attachment, PromptInput, SessionDeps, SessionStatus, TurnTicket } from "./session-types.ts";
export type { TurnAnswer } from "./turn-queue.ts";

/**
 * One session: its settings, its conversation in the store, and a queue of turns run one at a
 * time. Everything it does is told on its bus; whoever can answer for the person is `interaction`.
 */
export class Session {
  interaction: Interaction | null = null;
  /** How its tools read and write files, when a front end set other than the disk (an editor's buffers). */
  fileAccess: FileAccess | null = null;
  /** Its MCP servers (session-mcp.ts), when it has any; stopped as it closes. */
  mcp: SessionMcp | null = null;
  /** Its hooks (hook-set.ts), when it has any. */
  hooks: SessionHooks | null = null;
  /** SessionStart's source, until its first prompt here runs the hook: a session made, or opened from the store. */
  hookStart: "startup" | "resume" | null = null;
  private running: { turnId: string; abort: AbortController; maxMode: Mode | null } | null = null;
  private readonly inbox: { text: string; id?: string }[] = [];
  private todos: TodoItem[] = [];
  private readonly reads = new ReadLedger();
  private readonly compactCommand: CompactCommand;
  /** What the session lends its turns' steps and tools (step-loop.ts, tool-context.ts) and keeps from everyone else. */
  private readonly parts: StepParts;
  readonly jobs = new Jobs();
  /** Made at the session's first step (its git status set going as it is created) and sent unchanged after; modes go in the conversation. */
  readonly systemPrompt = new SessionPrompt(() => ({ root: this.root, cwd: this.cwd, configDir: this.deps.paths.configDir, settings: () => this.deps.personal?.() ?? this.deps.config, notice: (m) => this.notice(m) }));
  private readonly turns: TurnQueue;
  /** The turns admitted and being prepared, not yet run: a cancel stops their preparation. */
  private readonly preparing = new Map<string, AbortController>();
  /** Aborted when the session closes: work that is not a turn (the title call) stops too. */
  private readonly closing = new AbortController();
  /** Its SessionEnd hooks, run as it closes. */
  private readonly end = new SessionEnd();
  private readonly said = new Set<string>();

  constructor(
    private row: SessionRow,
    readonly bus: SessionBus,
    /** What the engine made it with: the store, the config, the models and the tools. */
    readonly deps: SessionDeps,
    /** The highest mode this session may be in (remote.max_mode for the link's sessions). */
    readonly maxMode: Mode = "auto",
    /** The conversation as stored, kept as it is written: given when the caller knows it (a session just made has none), else read from the store on first use. */
    private history: StoredMessage[] | null = null,
  ) {
    this.turns = new TurnQueue(deps.db, row.id, (message) => this.notice(message));
    const compaction = new Compaction({
      bus,
      messages: () => this.messages(),
      summary: () => ({ summary: this.row.summary, summarySeq: this.row.summarySeq }),
      beforeCompact: async (trigger, signal) => void (await this.hooks?.run("PreCompact", trigger, { trigger, custom_instructions: "" }, signal)),
      keepSummary: (summary, summarySeq) => {
        this.row = { ...this.row, summary, summarySeq };
        updateSession(this.deps.db, this.id, { summary, summarySeq });
      },
    });
    this.compactCommand = new CompactCommand({ compaction, models: deps.models, model: () => this.row.model, summary: () => this.row.summary, enqueue: (work) => this.turns.enqueue(work) });
    this.parts = {
      compaction,
      reads: this.reads,
      known: new KnownModels(),
      allowed: new Set<string>(),
      inbox: this.inbox,
      todos: () => this.todos,
      setTodos: (todos) => {
        this.todos = todos;
        this.bus.emit({ type: "todos", todos });
      },
      summary: () => ({ summary: this.row.summary, summarySeq: this.row.summarySeq }),
      append: (message) => this.append(message),
    };
  }

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
    return isOneOf(MODES, this.row.mode) ? this.row.mode : "edit";
  }
  get model(): string | null {
    return this.row.model;
  }
  get effort(): Effort {
    return isOneOf(EFFORTS, this.row.effort) ? this.row.effort : "medium";
  }
  /** The running turn's cap (remote.max_mode for a web prompt), or null when it has none or no turn runs. */
  get turnCap(): Mode | null {
    return this.running?.maxMode ?? null;
  }

  /** The mode the running turn works in, or null when no turn runs. */
  get runningMode(): Mode | null {
    return this.running ? turnMode(this.mode, this.turnCap) : null;
  }

  get busy(): boolean {
    return this.running !== null || this.turns.waiting.length > 0 || this.compactCommand.busy;
  }

  /** Whether a prompt's turn runs, to take steering (busy with only turns waiting, or an action, it is not). */
  get steerable(): boolean {
    return this.running !== null;
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
      queued: [...this.turns.waiting],
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
  async prompt(input: PromptInput): Promise<TurnAnswer> {
    startedUp(); // a turn's stream is hot code: compiled as usual from now on (src/jit-policy.ts)
    const turnId = input.turnId ?? newTurnId();
    const admitted = await this.admit(turnId);
    return "known" in admitted ? admitted.known : admitted.ticket.prompt(input);
  }

  /**
   * Looks a turn id up before anything is done for it. A known one (running, waiting, done, here or
   * in another process) gets its answer and nothing else happens; a new one is accepted in the
   * store and its caller given a ticket: it prepares the turn (attachments, a command's mode) and
   * then runs it through the ticket, or abandons it when it cannot be prepared.
   */
  async admit(turnId: string): Promise<{ known: Promise<TurnAnswer> } | { ticket: TurnTicket }> {
    const admitted = await this.turns.admit(turnId);
    if ("known" in admitted) return admitted;
    const { ticket } = admitted;
    // Cancelled while it is prepared (an editor's buffer read for an @mention), the turn answers cancelled without running.
    const preparation = new AbortController();
    this.preparing.set(turnId, preparation);
    const prepared = () => this.preparing.delete(turnId);
    return {
      ticket: {
        turnId,
        signal: preparation.signal,
        prompt: (input) => (prepared(), ticket.run(() => this.runTurn(turnId, { ...input, turnId }))),
        action: (work, command) => (prepared(), ticket.run(() => this.runAction(turnId, work, command))),
        abandon: (error) => (prepared(), ticket.abandon(error)),
      },
    };
  }

  /** Tells whoever listens something the person should know (a command file that was skipped). */
  notice(message: string, level: "info" | "warn" = "warn"): void {
    this.bus.emit({ type: "notice", message, level });
  }

  /** A notice said once in the session's life, however often what it says is found again (a command file skipped, read at every prompt). */
  noticeOnce(message: string): void {
    if (this.said.has(message)) return;
    this.said.add(message);
    this.notice(message);
  }

  /** Files the person attached (@mentions): the model has seen them, as if it had read them (`held`: as an editor held them). */
  markRead(paths: readonly string[], held: ReadonlyMap<string, string> = new Map()): void {
    for (const path of paths) this.reads.mark(path, held.get(path), held.has(path) ? "held" : "disk");
  }

  /**
   * Runs an action (/compact, /undo, /plan without a task) as a turn of its own: after the turns
   * before it, its turn id deduplicated like a prompt's, its answer kept. A UserError it throws
   * becomes the answer's error.
   */
  async action(turnId: string, run: ActionRun, command?: string): Promise<TurnAnswer> {
    const admitted = await this.admit(turnId);
    return "known" in admitted ? admitted.known : admitted.ticket.action(run, command);
  }

  private async runAction(turnId: string, run: ActionRun, command?: string): Promise<TurnAnswer> {
    const refused = this.turns.start(turnId);
    if (refused) return refused;
    // Running from here: an action cut short by the process's end is never done twice (/undo).
    setTurnState(this.deps.db, this.id, turnId, "running");
    this.bus.emit({ type: "task", state: "start", turnId });
    let result: TurnAnswer | null = null;
    const named = { action: true, ...(command ? { command } : {}) } as const;
    try {
      result = { turnId, stopReason: "end_turn", ...named, meta: await run() };
    } catch (error) {
      if (!(error instanceof UserError)) {
        // Stored as done all the same: a turn left running would be taken for one cut short.
        this.turns.finish(turnId, { turnId, stopReason: "end_turn", ...named, error: errorMessage(error) });
        throw error;
      }
      // A /compact cancelled did nothing: the turn says cancelled, not an error.
      result = error instanceof CompactCancelled ? { turnId, stopReason: "cancelled", ...named } : { turnId, stopReason: "end_turn", ...named, error: error.message };
    } finally {
      this.bus.emit({ type: "task", state: "end", turnId, stopReason: result?.stopReason ?? "end_turn" });
    }
    this.turns.finish(turnId, result);
    return result;
  }

  /** Stops the running turn (the stream and its tools at once; what was said is kept), or a /compact. */
  cancel(): void {
    for (const [turnId, preparation] of this.preparing) if (this.turns.drop(turnId)) preparation.abort();
    this.running?.abort.abort();
    this.compactCommand.cancel();
  }

  /**
   * Cancels one turn: the running one is stopped; a waiting one is dropped (it answers cancelled
   * without running). Other turns are left alone.
   */
  cancelTurn(turnId: string): void {
    if (this.running?.turnId === turnId) this.running.abort.abort();
    else this.turns.drop(turnId);
  }

  /**
   * Cancels the running turn and every waiting one (they answer cancelled without running); with
   * `finish`, the running turn is let end on its own (the session moves to another process).
   */
  close(opts: { deleted?: boolean; finish?: boolean } = {}): void {
    this.turns.close(opts);
    if (!this.closing.signal.aborted) this.end.begin(this.hooks, opts.deleted ? "clear" : "other");
    this.closing.abort();
    void this.jobs.stopAll();
    void this.mcp?.stop();
    if (!opts.finish) this.cancel();
  }

  /** Stops its SessionEnd hooks now, or before they start: whoever ends the process will not wait for them. */
  stopEnding(): void {
    this.end.stop();
  }

  /** A message for the running turn, given to the model at its next step. */
  steer(text: string, id?: string): { queued: number } {
    if (!this.running) throw new UserError("nothing is running in this session: send it as a prompt instead", 2);
    this.inbox.push({ text, ...(id ? { id } : {}) });
    this.bus.emit({ type: "inbox", count: this.inbox.length, texts: this.inbox.map((m) => m.text) });
    return { queued: this.inbox.length };
  }

  setMode(requested: Mode): Mode {
    const mode = cappedMode(requested, this.maxMode);
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

  /** Summarises the history so far (compact-command.ts); the model then sees the summary instead. Refused while a turn runs. */
  async compact(): Promise<{ summary: string }> {
    if (this.busy) throw new UserError("the session is working: compact it when the turn has ended", 2);
    return this.compactCommand.queued();
  }

  /** Compacts now (from within the turn queue: /compact); a cancel stops it. */
  compactNow(): Promise<{ summary: string }> {
    return this.compactCommand.now();
  }

  /**
   * Undoes the last turn: its files back byte for byte, its messages gone from what the model sees.
   * Null when there is no turn to undo. Refused while a turn runs.
   */
  undo(): Undone | null {
    if (this.busy) throw new UserError("the session is working: undo when the turn has ended", 2);
    return this.undoNow();
  }

  /**
   * Undoes the last turn now (from within the turn queue: /undo); with the session's file access
   * (`through`: an editor's), the files are put back through it, as the tools wrote them.
   */
  undoNow(): Undone | null;
  undoNow(through: FileAccess): Promise<Undone | null>;
  undoNow(through?: FileAccess): Undone | null | Promise<Undone | null> {
    // Read afresh: what undo deletes must be what the store holds.
    this.history = null;
    const lastUser = this.messages().findLast((m) => m.role === "user" && !m.body.steer);
    if (!lastUser || lastUser.role !== "user") return through ? Promise.resolve(null) : null;
    const { turnId, seq } = lastUser;
    const undone = (restored: Restored): Undone => {
      this.cutFrom(seq);
      return { prompt: lastUser.body.display ?? lastUser.body.text, ...restored };
    };
    const place = [this.deps.db, this.id, turnId ?? "", this.root, this.deps.paths.stateDir] as const;
    if (through) return turnId ? restoreTurnThrough(through, ...place).then(undone) : Promise.resolve(undone({ files: [], skipped: [] }));
    return undone(turnId ? restoreTurn(...place) : { files: [], skipped: [] });
  }

  /**
   * Goes back to before a turn (rewind.ts): its code and every later turn's put back newest first,
   * and/or the conversation cut there. Refused while a turn runs; an unknown turn is a UserError.
   * The session event then tells every client (the web reloads its history on it).
   */
  rewind(turnId: string, what: RewindWhat): Rewound {
    if (this.busy) throw new UserError("the session is working: rewind when the turn has ended", 2);
    this.history = null;
    const messages = this.messages();
    const point = pointOf(messages, turnId);
    const place = { db: this.deps.db, sessionId: this.id, root: this.root, stateDir: this.deps.paths.stateDir };
    const restored = what === "conversation" ? leaveCode(place, messages, point) : rewindCode(place, messages, point);
    if (what !== "code") this.cutFrom(point.seq);
    const turns = new Set(messages.filter((m) => m.seq >= point.seq && m.turnId).map((m) => m.turnId)).size;
    this.bus.emit(this.info());
    return { prompt: point.prompt, turns, what, seq: point.seq, ...restored };
  }

  /** Forgets the conversation from this message on (and a summary that covered any of it). */
  private cutFrom(seq: number): void {
    deleteMessagesFrom(this.deps.db, this.id, seq);
    this.history = null;
    if (this.row.summarySeq !== null && this.row.summarySeq >= seq) {
      this.row = { ...this.row, summary: null, summarySeq: null };
      updateSession(this.deps.db, this.id, { summary: null, summarySeq: null });
    }
  }

  /** Waits for every queued turn (and the title call after the first) to end. */
  idle(): Promise<void> {
    return this.turns.idle();
  }

  private async runTurn(turnId: string, input: PromptInput): Promise<TurnAnswer> {
    const refused = this.turns.start(turnId);
    if (refused) return refused;
    if (input.mode) this.setMode(input.modeOnlyLowers ? cappedMode(input.mode, this.mode) : input.mode);
    // A session the web holds follows remote.max_mode as config.yaml says it now: above it, its mode is lowered, said as any change is.
    if (input.maxMode && this.maxMode !== "auto") this.setMode(cappedMode(this.mode, input.maxMode));
    const abort = new AbortController();
    this.running = { turnId, abort, maxMode: input.maxMode ?? null };
    let firstPrompt = false;
    let outcome: { stopReason: StopReason; error?: string };
    const undo = new TurnUndo(this.deps.db, this.id, turnId, this.root, this.deps.projects);
    // Whatever fails (the store, a listener), the turn ends with an answer and the session is free.
    try {
      const start = this.hookStart;
      this.hookStart = null;
      const hooked = this.hooks ? await promptHooks(this.hooks, input, start, abort.signal) : { input };
      if ("refused" in hooked) {
        this.bus.emit({ type: "task", state: "start", turnId });
        outcome = { stopReason: "end_turn", error: `a UserPromptSubmit hook refused the prompt: ${hooked.refused}` };
      } else {
        firstPrompt = this.beginTurn(turnId, hooked.input);
        outcome = await runSteps(this, this.parts, { turnId, input: hooked.input, signal: abort.signal, undo });
      }
    } catch (error) {
      const said = storeFailure(error, this.deps.paths.dbFile)?.message ?? errorMessage(error);
      outcome = { stopReason: abort.signal.aborted ? "cancelled" : "end_turn", error: said };
    }
    undo.finish();
    if (outcome.error) this.bus.emit({ type: "error", message: outcome.error, turnId });
    const unsent = this.inbox.splice(0).map((m) => m.text);
    const answer: TurnAnswer = {
      turnId,
      stopReason: outcome.stopReason,
      ...(input.command ? { command: input.command } : {}),
      ...(unsent.length > 0 ? { unsent } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
    };
    this.running = null;
    this.turns.finish(turnId, answer);
    this.bus.emit({ type: "done", turnId, stopReason: endReason(answer), ...(unsent.length > 0 ? { unsent } : {}) });
    this.bus.emit({ type: "task", state: "end", turnId, stopReason: endReason(answer) });
    // A turn interrupted ended in front of whoever interrupted it: nobody is to be told (the terminal is silent too).
    if (endReason(answer) !== "cancelled") notify(this.hooks, "idle_prompt", "lembas is waiting for your input");
    // A prompt sent meanwhile stops the naming call, as the session's close does.
    const naming = () => nameSession(this.deps.models, this.row.model, input.display ?? input.text, AbortSignal.any([this.closing.signal, this.turns.nextTurn]), (t) => this.setTitle(t));
    // A one-shot (`lembas run`) ends with its turn, which would abort the call just sent: it keeps its provisional title.
    if (firstPrompt && !outcome.error && this.row.origin !== "run") void this.turns.enqueue(naming);
    return answer;
  }

  /** Marks the turn running, says so, and stores the person's message. True for the session's first prompt. */
  private beginTurn(turnId: string, input: PromptInput): boolean {
    const user = userRecord(input, turnMode(this.mode, this.turnCap));
    const firstPrompt = !this.row.title;
    const title = firstPrompt ? cleanTitle(provisionalTitle(input.display ?? input.text)) : null;
    this.bus.emit({ type: "task", state: "start", turnId });
    const seq = storeTurnStart(this.deps.db, this.id, turnId, user, title);
    this.remember({ seq, role: "user", body: user, turnId });
    const attachments = input.attachments?.map(({ name, mimeType, size }) => ({ name, mimeType, size }));
    this.bus.emit({ type: "prompt", text: input.display ?? input.text, turnId, ...(attachments?.length ? { attachments } : {}) });
    if (title) this.titled(title);
    return firstPrompt;
  }
}
