import { cpSync, existsSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { SessionBus } from "../bus/index.ts";
import type { Env, Paths } from "../config/paths.ts";
import type { Config, Effort, Mode } from "../config/schema.ts";
import { errorMessage, UserError } from "../errors.ts";
import type { RetryPolicy } from "../model/retry.ts";
import type { ProtectedPaths } from "../project/protected.ts";
import { liveCommands, liveProtectedPaths, liveWeb } from "./config-derived.ts";
import { realOr } from "../real-path.ts";
import { projectRoot } from "../project/root.ts";
import { type Db, storeFailure } from "../store/db.ts";
import { deleteSession, getSession, insertSession, listSessions, newSessionId } from "../store/sessions.ts";
import { beat, HEARTBEAT_MS } from "../store/holds.ts";
import { holdSession, heldElsewhere, heldElsewhereSentence, lostHolds, releaseHold } from "../store/placement.ts";
import type { Jobs } from "../tools/jobs.ts";
import { hasSchema, inputSchema, type Tool } from "../tools/tool.ts";
import type { ModelSource } from "../model/resolved.ts";
import type { PersonalSettings } from "./instructions.ts";
import { FollowedProjects } from "./followed-projects.ts";
import { cappedMode } from "./mode-cap.ts";
import { Session, type SessionDeps } from "./session.ts";
import type { LibraryBackend } from "../tools/library-backend.ts";
import type { CodeIndexBackend } from "../tools/code-search-backend.ts";
import { SessionMcp } from "./session-mcp.ts";
import { EngineLanguageServers } from "./language-servers.ts";
import type { McpWiring } from "../mcp/wiring-types.ts";
import type { McpServerSpec } from "../mcp/spec.ts";
import { trashDirOf } from "./undo-trash.ts";
import { forkEnd } from "./rewind.ts";
import { copySession } from "../store/session-copies.ts";
import { listMessages } from "../store/messages.ts";
import { parseStored, type StoredMessage } from "./records.ts";
import { hookTranscriptPath, sessionHooks } from "./session-hooks.ts";

export { projectRoot };

export type EngineOptions = {
  db: Db;
  paths: Paths;
  config: Config;
  models: ModelSource;
  tools: readonly Tool[];
  retry?: Partial<RetryPolicy>;
  maxSteps?: number;
  /** Who this process is, in the store's holds: "service", "terminal", "editor", "run". */
  holder?: string;
  /** A file the model read or changed (for the @ picker's frecency). */
  onFileUse?: (root: string, path: string) => void;
  /** Each session's personal settings, asked as it makes its system prompt (default: config's own keys). */
  personal?: () => PersonalSettings | Promise<PersonalSettings>;
  /** What the tools' commands start from, before the secrets are taken out (default: this process's environment). */
  commandEnv?: Env;
  /** The person's library the `library` tool searches (absent: none configured). */
  library?: LibraryBackend;
  /** The code indexes code_search reaches (absent: none). */
  code?: CodeIndexBackend;
  /** Where sessions' MCP servers come from and what runs them (src/mcp/wiring.ts); none: sessions have none. */
  mcp?: McpWiring;
  /** The paths no tool touches without asking as config.yaml says them now, when the caller made them already (default: from config and paths). */
  protectedPaths?: () => ProtectedPaths;
};

export type NewSession = {
  cwd: string;
  /** The project root; defaults to the git top-level above cwd, else cwd. */
  root?: string;
  mode?: Mode;
  model?: string | null;
  effort?: Effort;
  origin?: string;
  maxMode?: Mode;
  /** The editor's MCP servers (session/new's mcpServers), beside config.yaml's, the project's and the instances'. */
  mcpServers?: readonly McpServerSpec[];
};

/**
 * The engine: sessions made or opened from the store, each with its own bus. A library: the ACP
 * agent, the link and the terminal are its clients, and it knows none of them.
 */
export class Engine {
  private readonly sessions = new Map<string, Session>();
  /** The background jobs of sessions let go of that have not all ended: the engine's stop waits for them too. */
  private readonly jobsOfGone = new Set<Jobs>();
  private readonly deps: SessionDeps;
  private readonly holder: string;
  private readonly mcp: McpWiring | null;

  constructor(options: EngineOptions) {
    this.holder = options.holder ?? "lembas";
    this.mcp = options.mcp ?? null;
    // The holds of this process's sessions stay fresh while it runs (it never keeps the process up).
    setInterval(() => {
      try {
        beat(options.db);
        this.letGoOfLost();
      } catch {
        // the next beat tries again
      }
    }, HEARTBEAT_MS).unref();
    const { paths, config } = options;
    const guarded = options.protectedPaths ?? liveProtectedPaths(config, [paths.configDir, paths.stateDir]);
    this.deps = {
      db: options.db,
      paths,
      config,
      models: options.models,
      tools: options.tools,
      // config.yaml's protected, tools.env_passthrough and fetch.allow_private as it says them now: from the next tool call.
      get protectedPaths() {
        return guarded();
      },
      projects: new FollowedProjects(paths.stateDir),
      commands: liveCommands(config, options.commandEnv ?? process.env, [paths.configDir, paths.stateDir]),
      web: liveWeb(config),
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.maxSteps ? { maxSteps: options.maxSteps } : {}),
      ...(options.onFileUse ? { onFileUse: options.onFileUse } : {}),
      ...(options.personal ? { personal: options.personal } : {}),
      ...(options.library ? { library: options.library } : {}),
      ...(options.code ? { code: options.code } : {}),
    };
    this.deps.languageServers = new EngineLanguageServers(this.deps);
  }

  get models(): ModelSource {
    return this.deps.models;
  }

  /** The paths no tool (nor @mention) touches without asking. */
  get protectedPaths(): ProtectedPaths {
    return this.deps.protectedPaths;
  }

  /**
   * Does ahead of time what the first turn would otherwise wait for: the model lists (which also
   * opens the connection to the model server) and the tools' JSON schemas. Never fails.
   */
  async warm(): Promise<void> {
    const listed = this.deps.models.refs().catch(() => {
      // the first turn will say what is wrong
    });
    for (const tool of this.deps.tools) {
      if (hasSchema(tool)) continue;
      await Bun.sleep(0); // one schema at a time, so a request that comes in meanwhile is not held up
      inputSchema(tool);
    }
    await listed;
  }

  async create(input: NewSession): Promise<Session> {
    // Rooted where the directory really is: a path through a symlink would be judged outside the project once resolved.
    const cwd = realOr(resolve(input.cwd));
    if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UserError(`${cwd} is not a directory`, 2);
    const maxMode = input.maxMode ?? "auto";
    const model = input.model === undefined ? this.deps.config.model : input.model;
    const resolved = model ? (await this.deps.models.resolve(model)).ref : model;
    const root = input.root ? realOr(resolve(input.root)) : projectRoot(cwd);
    // Made and held in one commit: nobody sees it unheld, and the first prompt waits on one write less.
    const row = this.deps.db
      .transaction(() => {
        const made = insertSession(this.deps.db, {
          id: newSessionId(),
          root,
          cwd,
          mode: cappedMode(input.mode ?? this.deps.config.mode, maxMode),
          model: resolved ?? null,
          effort: input.effort ?? this.deps.config.effort,
          origin: input.origin ?? "terminal",
        });
        holdSession(this.deps.db, made.id, this.holder, { recover: false });
        return made;
      })
      .immediate();
    const session = new Session(row, new SessionBus(row.id), this.deps, maxMode, []);
    session.hookStart = "startup";
    // Its git status runs while the caller answers (an editor's session/new) and the first prompt comes.
    session.systemPrompt.start();
    return this.track(session, input.mcpServers ?? []);
  }

  /**
   * The session in memory, else opened from the store (the turns a dead process left unfinished
   * marked interrupted), else null. A session another live process holds is refused with a sentence.
   * `mcpServers`: the editor's, for a session opened from the store (one in memory keeps its own).
   */
  open(id: string, opts: { maxMode?: Mode; mcpServers?: readonly McpServerSpec[] } = {}): Session | null {
    const live = this.sessions.get(id);
    if (live) return live;
    const row = getSession(this.deps.db, id);
    if (!row) return null;
    // Held, and what a dead holder left settled, in one transaction.
    const other = holdSession(this.deps.db, id, this.holder, { recover: true });
    if (other) throw new UserError(heldElsewhereSentence(other), 1);
    const maxMode = opts.maxMode ?? "auto";
    const session = new Session({ ...row, mode: cappedMode(row.mode as Mode, maxMode) }, new SessionBus(id), this.deps, maxMode);
    session.hookStart = "resume";
    return this.track(session, opts.mcpServers ?? []);
  }

  /**
   * A new session from another's conversation through a turn (null: all of it), opened here; the
   * original stays as it was. A session another live process holds is refused with a sentence
   * naming where (its turn may be writing the history), as is an unknown session or turn.
   */
  fork(id: string, throughTurnId: string | null, opts: { origin: string; maxMode?: Mode; mcpServers?: readonly McpServerSpec[] }): Session {
    const live = this.sessions.get(id);
    const row = getSession(this.deps.db, id);
    if (!row) throw new UserError(`there is no session ${id} (lembas sessions list shows them)`, 2);
    const other = heldElsewhere(this.deps.db, id);
    if (other) throw new UserError(`${heldElsewhereSentence(other)}: fork it there, or once it is closed`, 1);
    if (live?.busy) throw new UserError("the session is working: fork it when the turn has ended", 2);
    // The store is the history as written (a live session writes each message, and its summary, at once).
    const end = forkEnd(storedMessages(this.deps.db, id), throughTurnId);
    const forkId = newSessionId();
    // Its own copy of the attachments: the fork keeps them when the original is deleted.
    const attachments = { from: join(this.deps.paths.attachmentsDir, id, "/"), to: join(this.deps.paths.attachmentsDir, forkId, "/") };
    if (existsSync(attachments.from)) cpSync(attachments.from, attachments.to, { recursive: true });
    const copied = copySession(this.deps.db, row, { id: forkId, title: forkTitle(row.title), origin: opts.origin }, end, attachments);
    const opened = this.open(copied.id, { ...(opts.maxMode ? { maxMode: opts.maxMode } : {}), ...(opts.mcpServers ? { mcpServers: opts.mcpServers } : {}) });
    if (!opened) throw new Error(`the fork ${copied.id} was not stored`);
    return opened;
  }

  get(id: string): Session | null {
    return this.sessions.get(id) ?? null;
  }

  list(): Session[] {
    return [...this.sessions.values()];
  }

  /** Stops the session if it works and removes it, its messages and its attachments. */
  async delete(id: string): Promise<boolean> {
    const other = heldElsewhere(this.deps.db, id);
    if (other) throw new UserError(heldElsewhereSentence(other), 1);
    const session = this.sessions.get(id);
    if (session) {
      // Its running turn stops and the waiting ones never run: nothing is done for a deleted chat.
      session.close({ deleted: true });
      await session.idle();
      await session.mcp?.stop();
      this.forget(session);
    }
    releaseHold(this.deps.db, id);
    rmSync(join(this.deps.paths.attachmentsDir, id), { recursive: true, force: true });
    rmSync(trashDirOf(this.deps.paths.stateDir, id), { recursive: true, force: true });
    rmSync(hookTranscriptPath(this.deps.paths.stateDir, id), { force: true });
    const root = getSession(this.deps.db, id)?.root;
    const deleted = deleteSession(this.deps.db, id);
    if (root && listSessions(this.deps.db, { root, limit: 1 }).length === 0) this.deps.projects.forget(root);
    return deleted;
  }

  /**
   * Cancels every running and waiting turn, waits for them to end and lets go of their holds
   * (shutdown). Never throws: it does what it can, and returns what it could not do, a sentence
   * each (a full disk fails every release alike: said once).
   */
  async stop(): Promise<string[]> {
    const problems = new Set<string>();
    const listings = this.deps.models.stop?.();
    this.mcp?.stop?.();
    const sessions = [...this.sessions.values()];
    for (const session of sessions) {
      try {
        session.close();
      } catch (error) {
        problems.add(`session ${session.id} could not be stopped: ${this.sentence(error)}`);
      }
    }
    const ended = await Promise.allSettled(sessions.map((s) => s.idle()));
    ended.forEach((end, i) => {
      if (end.status === "rejected") problems.add(`session ${sessions[i]?.id} did not end cleanly: ${this.sentence(end.reason)}`);
    });
    // The sessions' background jobs were told to stop as they closed: they get their grace period.
    const jobs = [...sessions.map((s) => s.jobs), ...this.jobsOfGone];
    await Promise.all([...jobs.map((j) => j.ended()), ...sessions.map((s) => s.mcp?.stop()), ...sessions.map((s) => s.hooks?.idle())]);
    this.deps.projects.forgetAll();
    await listings?.catch(() => {});
    await this.deps.library?.stop?.().catch(() => {});
    await this.deps.code?.stop().catch(() => {});
    await this.deps.languageServers?.stop().catch(() => {});
    for (const id of this.sessions.keys()) {
      try {
        releaseHold(this.deps.db, id);
      } catch (error) {
        // A hold left behind names this process, which is gone by then: the next one takes it.
        problems.add(`the sessions' holds could not be let go: ${this.sentence(error)}`);
      }
    }
    return [...problems];
  }

  private sentence(error: unknown): string {
    return storeFailure(error, this.deps.paths.dbFile)?.message ?? errorMessage(error);
  }

  /**
   * Lets go of a session: its turns end first (the running one cancelled, or with `finish` let
   * finish), and another process may then hold it. The waiting ones never start: they answer unstarted.
   */
  async release(id: string, opts: { finish?: boolean } = {}): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    session.close(opts);
    await session.idle();
    await Promise.all([session.mcp?.stop(), session.hooks?.idle()]);
    this.forget(session);
    releaseHold(this.deps.db, id);
  }

  /**
   * Stops running the sessions this process no longer holds (deleted, or taken by another process
   * while this one was stopped), so that two processes never write one session: each is closed
   * here, with a notice saying why.
   */
  letGoOfLost(): void {
    for (const { sessionId, holder } of lostHolds(this.deps.db, [...this.sessions.keys()])) {
      const session = this.sessions.get(sessionId);
      if (!session) continue;
      this.forget(session);
      const why = holder
        ? `session ${sessionId} was taken by another lembas process (${holder.holder}, pid ${holder.pid}) while this one was not running: it is no longer run here`
        : `session ${sessionId} was deleted while this process was not running: it is no longer run here`;
      session.bus.emit({ type: "notice", level: "warn", message: why });
      session.close({ deleted: holder === null });
    }
  }

  private track(session: Session, editorServers: readonly McpServerSpec[] = []): Session {
    this.sessions.set(session.id, session);
    session.bus.emit(session.info());
    session.hooks = sessionHooks(session, this.deps);
    this.startMcp(session, editorServers);
    return session;
  }

  /** Takes a closed session out of the engine; its jobs still ending are kept for the stop to wait for. */
  private forget(session: Session): void {
    this.sessions.delete(session.id);
    for (const jobs of this.jobsOfGone) if (!jobs.ending) this.jobsOfGone.delete(jobs);
    if (session.jobs.ending) this.jobsOfGone.add(session.jobs);
  }

  /** Starts the session's MCP servers, if it has any, without waiting for them (its first step does). */
  private startMcp(session: Session, editor: readonly McpServerSpec[]): void {
    const gathering = this.mcp?.gather({ root: session.root, cwd: session.cwd }, editor);
    if (!this.mcp || !gathering) return;
    session.mcp = new SessionMcp(gathering, {
      sessionId: session.id,
      wiring: this.mcp,
      mode: () => session.mode,
      hubOptions: {
        env: this.deps.commands.env,
        cwd: session.cwd,
        // Its stdio servers run in the tools' sandbox, as bash's commands do.
        sandbox: { hidden: this.deps.commands.hidden, root: session.root },
        onNotice: (message) => session.notice(message),
      },
    });
  }
}

/** A session's conversation as stored (for one this process does not run). */
function storedMessages(db: Db, id: string): StoredMessage[] {
  return listMessages(db, id)
    .map(parseStored)
    .filter((m): m is StoredMessage => m !== null);
}

/** The fork's title: the original's, said to be a fork. */
function forkTitle(title: string): string {
  return title ? `${title} (fork)` : "";
}
