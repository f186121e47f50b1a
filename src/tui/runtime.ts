import type { EngineEvent } from "../bus/index.ts";
import type { Context } from "../app/context.ts";
import type { Effort, Mode } from "../config/schema.ts";
import { createEngine, registryLogins } from "../app/start-engine.ts";
import type { Engine } from "../engine/engine.ts";
import type { Session, TurnAnswer } from "../engine/session.ts";
import type { RewindWhat, Rewound } from "../engine/rewind.ts";
import { newTurnId } from "../engine/turn-queue.ts";
import { errorMessage, UserError } from "../errors.ts";
import { type Block, BlockError } from "../front/blocks.ts";
import { historyTurns, type HistoryTurn } from "../transcript/history-turns.ts";
import { commandsChanged, devicePlace, enterPrompt, type PromptPlace } from "../front/prompt.ts";
import type { ModelRegistry } from "../model/registry.ts";
import { loadCommands, parseCommand } from "../project/commands.ts";
import { createFileIndexes, type FileIndexes } from "../project/files.ts";
import { listSessions, type SessionRow } from "../store/sessions.ts";
import { deleteHere, discardEmpty } from "../app/device-delete.ts";
import { CardDesk } from "./cards.ts";
import { ServiceLink, type ServiceLinkState } from "./service-link.ts";
import type { TerminalShare } from "./share.ts";
import { takeFromService } from "./service-take.ts";
import { type SharingSaid, sharingSaid } from "./share-state.ts";
import { NO_SERVICE_TO_SHARE } from "./share-choices.ts";
import { latestIn, type Opening } from "./opening.ts";

export type { Opening };

export type SessionChoice = { model?: string; mode?: Mode; effort?: Effort };

/** What the screen hears: the session's events, and when the terminal moved to another session. */
export type RuntimeChange =
  | { type: "event"; event: EngineEvent }
  | { type: "opened"; session: Session; history: HistoryTurn[] }
  /** The session's conversation was taken back (/rewind): what is left of it, to draw again below. */
  | { type: "rewound"; history: HistoryTurn[] }
  | { type: "note"; level: "info" | "warn"; message: string }
  /** Whether the session is shared, or why not, may have changed (runtime.sharingSaid() says it now). */
  | { type: "sharing" };

/** An image the person pasted or dragged in, as the prompt's upload. */
export type PastedImage = { data: string; mimeType: string; name?: string };

/** The most sessions /sessions lists (newest first). */
const SESSIONS_LISTED = 1000;

/**
 * The terminal's session runtime: the engine it drives (exactly as the ACP server drives it), the
 * session it shows, the cards the engine waits on, and the one way into that session for what the
 * person types. It knows nothing of the screen: the screen listens and calls.
 */
export class TuiRuntime {
  readonly desk = new CardDesk();
  /** The engine and what goes with it, made on first use: the screen's first frame does not wait for them. */
  private made: { engine: Engine; models: ModelRegistry; files: FileIndexes } | null = null;
  private current: Session | null = null;
  private quitting = false;
  /** Aborted when the terminal quits: a session still being handed over by the service is not waited for. */
  private readonly quitSignal = new AbortController();
  private unsubscribe: (() => void) | null = null;
  /** The link to the device's service, started once the first session is open. */
  private link: ServiceLink | null = null;
  /** Set once the link is under way (its modules loading, then started). */
  private linking: Promise<void> | null = null;
  /** The session shared with the web through the service (when the web may have it). */
  private sharing: TerminalShare | null = null;
  /** `lembas --share`: the first session is shared by name, as soon as a service is there. */
  shareAtStart = false;
  private readonly listeners = new Set<(change: RuntimeChange) => void>();
  /** Switches under way (see `switching`). */
  private moving = 0;

  constructor(
    public ctx: Context,
    readonly cwd: string,
  ) {}

  get engine(): Engine {
    return this.make().engine;
  }

  get models(): ModelRegistry {
    return this.make().models;
  }

  get files(): FileIndexes {
    return this.make().files;
  }

  private make(): { engine: Engine; models: ModelRegistry; files: FileIndexes } {
    if (this.made) return this.made;
    const { engine, models } = createEngine(this.ctx, "terminal", (root, path) => this.files.recordUse(root, path));
    this.made = { engine, models, files: createFileIndexes(this.ctx.db(), { protectedPaths: engine.protectedPaths }) };
    return this.made;
  }

  /**
   * Makes the engine again from config.yaml and the store as they are now: a first run added a
   * connection or a login before any session was opened. With a session open it is refused.
   */
  async reload(): Promise<void> {
    if (this.current) throw new Error("the engine is made again only before a session is open");
    const left = this.made?.engine;
    // The context's config reads config.yaml as it is now (config/live.ts): the engine is made on it again.
    this.made = null;
    this.make();
    await left?.stop();
  }

  /** A login was made or removed while the terminal runs: the models are listed afresh. */
  refreshLogins(): void {
    this.models.setLogins(registryLogins(this.ctx.db()));
  }

  listen(listener: (change: RuntimeChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get session(): Session {
    if (!this.current) throw new Error("the terminal has no session open yet");
    return this.current;
  }

  /** The model a session without its own uses (config.yaml's), or null when none is set. */
  get defaultModel(): string | null {
    return this.ctx.config().model ?? null;
  }

  /** The terminal's sharing through the service (once the first session is open), for /share and /unshare. */
  get share(): TerminalShare | null {
    return this.sharing;
  }

  /** Whether the session shown is shared with the web, and why not; null before one is open. */
  sharingSaid(): SharingSaid | null {
    if (!this.current) return null;
    try {
      return sharingSaid(this.current, this.sharing, this.service, this.ctx.config(), this.ctx.db());
    } catch {
      return null;
    }
  }

  /** Once the sharing's modules are loaded and the link's first try made (at once when the link is not under way). */
  async linked(): Promise<void> {
    await this.linking;
    await this.link?.tried;
  }

  /** What the terminal knows of the service (none when its link has not started). */
  get service(): ServiceLinkState {
    return this.link?.state ?? { kind: "none" };
  }

  get hasSession(): boolean {
    return this.current !== null;
  }

  /**
   * Whether the terminal is between two sessions (/new, /resume, /delete under way): the one shown
   * is being left, and what the person enters now is for the next one (the screen holds it until
   * that one is opened).
   */
  get switching(): boolean {
    return this.moving > 0;
  }

  /** Opens the first session; a resume of an id that is not there is a UserError (exit 2). */
  async open(opening: Opening, choice: SessionChoice = {}): Promise<Session> {
    const session = await this.sessionFor(opening, choice);
    if (this.quitting) {
      // The person quit while it opened: it is let go of as quit() would (a new, empty one is discarded).
      await this.leave(session);
      return session;
    }
    this.show(session);
    for (const notice of this.models.takeNotices()) this.emit({ type: "note", level: "info", message: notice });
    this.linkService();
    return session;
  }

  /** Moves to another session (or a new one), discarding the one left if nothing was ever sent in it. */
  async switchTo(opening: Opening, choice: SessionChoice = {}): Promise<Session> {
    const left = this.current;
    this.moving++;
    let session: Session;
    try {
      session = await this.sessionFor(opening, choice);
      if (left && left.id !== session.id) {
        await this.leave(left);
        // Once its hold is let go: the service may then say the web can open it.
        await this.sharing?.leave(left.id);
      }
    } finally {
      this.moving--;
    }
    this.show(session);
    if (left?.id !== session.id) void this.sharing?.share(session);
    return session;
  }

  /** Goes back to before a turn of the session shown (engine/rewind.ts). */
  rewind(turnId: string, what: RewindWhat): Rewound {
    return this.session.rewind(turnId, what);
  }

  /** Draws the session's conversation again, as it is after a rewind. */
  showRewound(): void {
    this.emit({ type: "rewound", history: historyTurns(this.session.messages(), { steps: true }) });
  }

  /** Moves to a new session forked from the one shown through a turn (null: all of it); the original stays as it was. */
  async fork(throughTurnId: string | null): Promise<Session> {
    const forked = this.engine.fork(this.session.id, throughTurnId, { origin: "terminal" });
    return this.switchTo({ kind: "resume", id: forked.id });
  }

  /** The sessions to pick from: this directory's project first, or every one. */
  sessions(scope: "project" | "all"): SessionRow[] {
    const db = this.ctx.db();
    if (scope === "all") return listSessions(db, { limit: SESSIONS_LISTED });
    // The project's own, asked of the store by root: filtering the device's newest would leave
    // them out once other projects had that many newer ones.
    const root = this.current?.root;
    const mine = root === undefined ? [] : listSessions(db, { root, limit: SESSIONS_LISTED });
    const ids = new Set(mine.map((row) => row.id));
    const here = listSessions(db, { limit: SESSIONS_LISTED }).filter((row) => row.cwd === this.cwd && !ids.has(row.id));
    return [...mine, ...here].sort((a, b) => b.updatedAt - a.updatedAt).slice(0, SESSIONS_LISTED);
  }

  /**
   * Enters what the person typed, with a turn id made here (the spec's "one made here for a turn
   * typed in a terminal"). A prompt that cannot be read (an image too large) is said as a note.
   * `context` goes to the model before it, unshown (what `!` commands printed).
   */
  async submit(text: string, images: readonly PastedImage[] = [], context?: string): Promise<TurnAnswer | null> {
    const session = this.session;
    const blocks: Block[] = [{ type: "text", text }, ...images.map((i) => ({ type: "image" as const, data: i.data, mimeType: i.mimeType, ...(i.name ? { uri: `file://${i.name}` } : {}) }))];
    try {
      const entered = await enterPrompt(session, blocks, newTurnId(), this.place(), context);
      if (!entered.known && commandsChanged(entered)) this.sharing?.commandsChanged(session, entered.after);
      return entered.answer;
    } catch (error) {
      if (!(error instanceof BlockError) && !(error instanceof UserError)) throw error;
      this.emit({ type: "note", level: "warn", message: errorMessage(error) });
      return null;
    }
  }

  /** Whether the text is one of the session's commands (/compact, /review, a custom one): it waits its turn, it never steers. */
  isCommand(text: string): boolean {
    return parseCommand(text, loadCommands({ root: this.session.root, configDir: this.ctx.paths.configDir, protectedPaths: this.engine.protectedPaths })) !== null;
  }

  /** Gives text to the running turn at its next step (_lembas/steer's semantics). */
  steer(text: string): void {
    this.session.steer(text);
  }

  cancel(): void {
    this.current?.cancel();
  }

  /**
   * Ends the terminal: the running turn cancelled, the store left consistent. Returns the session
   * to name for resuming, or null when nothing was ever sent in it (it is discarded).
   */
  async quit(): Promise<Session | null> {
    this.quitting = true;
    this.quitSignal.abort();
    const session = this.current;
    this.current = null;
    if (!session) {
      await this.link?.stop();
      this.unsubscribe?.();
      await this.made?.engine.stop();
      return null;
    }
    session.interaction = null;
    session.close();
    await session.idle();
    // Only now: the screen hears the turn end (its cards settled, "interrupted") before it stops.
    this.unsubscribe?.();
    const empty = session.messages().length === 0;
    // Let go of first, then left: the service tells the web whether it can open the session now.
    if (empty) await this.discard(session);
    else await this.engine.release(session.id);
    await this.sharing?.leave(session.id);
    await this.link?.stop();
    await this.engine.stop();
    return empty ? null : session;
  }

  private async sessionFor(opening: Opening, choice: SessionChoice): Promise<Session> {
    if (opening.kind === "new") {
      return this.engine.create({ cwd: this.cwd, origin: "terminal", maxMode: "auto", ...choice });
    }
    const id = opening.kind === "continue" ? latestIn(this.ctx.db(), this.cwd, this.current?.id) : opening.id;
    if (opening.kind !== "fork" && this.current?.id === id) return this.current;
    const session = opening.kind === "fork" ? this.engine.fork(id, null, { origin: "terminal", maxMode: "auto" }) : await this.opened(id);
    if (choice.mode) session.setMode(choice.mode);
    if (choice.model || choice.effort) await session.configure({ ...(choice.model ? { model: choice.model } : {}), ...(choice.effort ? { effort: choice.effort } : {}) });
    return session;
  }

  private async opened(id: string): Promise<Session> {
    // One the web opened at the service is handed over first (its running turn finishes there).
    const refused = await takeFromService(this.ctx.db(), this.ctx.paths.socketFile, id, (line) => this.emit({ type: "note", level: "info", message: line }), this.quitSignal.signal);
    if (refused) throw new UserError(`session ${id} could not be opened here: ${refused}`, 1);
    const session = this.engine.open(id, { maxMode: "auto" });
    if (!session) throw new UserError(`there is no session ${id} (lembas sessions list shows them)`, 2);
    return session;
  }

  /**
   * Links to the service in the background; a service of another version is said once, as a note.
   * The sharing's modules (the ACP SDK and its schemas: most of what the terminal would load
   * before its first frame) are loaded here, after the session is on the screen.
   */
  private linkService(): void {
    if (this.linking) return;
    this.linking = import("./share.ts").then(
      ({ TerminalShare }) => {
        if (!this.quitting) this.startLink(new TerminalShare(this.shareHost()));
      },
      (error: unknown) => this.emit({ type: "note", level: "warn", message: `the link to the service could not start: ${errorMessage(error)}` }),
    );
  }

  private shareHost(): ConstructorParameters<typeof TerminalShare>[0] {
    return {
      engine: this.engine,
      config: this.ctx.config(),
      paths: this.ctx.paths,
      db: this.ctx.db(),
      files: this.files,
      desk: this.desk,
      current: () => this.current,
      deleteSession: (id) => (this.current?.id === id ? this.deletedElsewhere() : deleteHere(this.engine, this.ctx.db(), id)),
    };
  }

  private startLink(sharing: TerminalShare): void {
    let said: string | null = null;
    this.sharing = sharing;
    sharing.onChange(() => this.emit({ type: "sharing" }));
    const first = this.current;
    if (this.shareAtStart && first) sharing.choices.byName(first.id);
    this.link = new ServiceLink({
      socketPath: this.ctx.paths.socketFile,
      serve: (stream) => sharing.serve(stream),
      onUp: (connection, links) => sharing.up(connection, links),
      onChange: (state) => {
        this.emit({ type: "sharing" });
        if (state.kind !== "mismatch" || state.sentence === said) return;
        said = state.sentence;
        this.emit({ type: "note", level: "warn", message: state.sentence });
      },
    });
    this.link.start();
    if (this.shareAtStart) void this.link.tried.then(() => {
      if (this.link?.state.kind === "none") this.emit({ type: "note", level: "warn", message: NO_SERVICE_TO_SHARE });
    });
  }

  private show(session: Session): void {
    this.unsubscribe?.();
    this.current = session;
    session.interaction = this.desk.interaction;
    this.unsubscribe = session.bus.subscribe((event) => this.emit({ type: "event", event }));
    this.emit({ type: "opened", session, history: historyTurns(session.messages(), { steps: true }) });
  }

  private async leave(session: Session): Promise<void> {
    session.interaction = null;
    if (session.messages().length > 0) {
      await this.engine.release(session.id);
      return;
    }
    await this.discard(session);
  }

  /** An empty session is not kept; where the web had been shown it, it is told deleted. */
  private async discard(session: Session): Promise<void> {
    await discardEmpty(this.engine, this.ctx.db(), session.id);
    this.sharing?.deleted(session.id);
  }

  /**
   * Deletes the session shown (/delete, or the web's delete of the session it shares): a new one
   * opens in its place first, so the screen always has one, in the mode, model and effort the
   * person had (a delete never loosens what the terminal lets run). Whether the store had it.
   */
  async deleteShown(): Promise<boolean> {
    const gone = this.session;
    const kept = { mode: gone.mode, effort: gone.effort };
    this.moving++;
    let next: Session;
    try {
      // A model no longer listed is not kept (the config's is taken); the mode always is.
      next = await this.sessionFor({ kind: "new" }, { ...kept, ...(gone.model ? { model: gone.model } : {}) }).catch(() => this.sessionFor({ kind: "new" }, kept));
    } catch (error) {
      this.moving--;
      throw error;
    }
    gone.interaction = null;
    let deleted: boolean;
    try {
      deleted = await deleteHere(this.engine, this.ctx.db(), gone.id);
    } catch (error) {
      // Not deleted (a full disk): let go of, so it is not held by a terminal that no longer shows it.
      await this.engine.release(gone.id).catch(() => {});
      throw error;
    } finally {
      this.sharing?.deleted(gone.id);
      this.moving--;
      this.show(next);
      void this.sharing?.share(next);
    }
    return deleted;
  }

  /** The session shown was deleted from elsewhere (the web, `lembas sessions delete` through the service): said, then as deleteShown. */
  private async deletedElsewhere(): Promise<boolean> {
    const gone = this.session;
    const deleted = await this.deleteShown();
    const next = this.session;
    this.emit({
      type: "note",
      level: "warn",
      message: `session ${gone.id} was deleted outside this terminal (from the web or with lembas sessions delete): this is a new session, ${next.id}, in ${next.mode} mode`,
    });
    return deleted;
  }

  private place(): PromptPlace {
    return devicePlace(this.ctx.paths, this.engine.protectedPaths, (root, path) => this.files.recordUse(root, path));
  }

  private emit(change: RuntimeChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        // console.error, not stderr: while the screen is up it is caught (stray-output.ts), never drawn over the frame.
        console.error(`lembas: the screen failed on ${change.type}: ${errorMessage(error)}`);
      }
    }
  }
}
