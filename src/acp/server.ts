import { z } from "zod";
import type { EngineEvent } from "../bus/index.ts";
import { EFFORTS, isOneOf, MODES } from "../config/key-values.ts";
import { cappedMode } from "../engine/mode-cap.ts";
import type { PermissionRequest } from "../engine/interaction.ts";
import type { Session } from "../engine/session.ts";
import { newTurnId } from "../engine/turn-queue.ts";
import { errorMessage } from "../errors.ts";
import { lazily } from "../lazy.ts";
import { acp, connectAgent } from "../rpc/agent.ts";
import type { Stream } from "../rpc/stream.ts";
import { markGiven } from "../store/marks.ts";
import { getLogin } from "../store/logins.ts";
import { getSession } from "../store/sessions.ts";
import { editorServers, LINK_SERVERS_REFUSAL } from "../mcp/from-editor.ts";
import type { McpServerSpec } from "../mcp/spec.ts";
import { initializeResult } from "./agent.ts";
import type { Block } from "../front/blocks.ts";
import { type ClientInfo, detectClient } from "./client.ts";
import { coalescer } from "./coalesce.ts";
import { type EditorFs, editorFs, lendEditorFiles } from "./editor-files.ts";
import { configOptions, SetConfigOption, setConfigOption, watchSettings } from "./config-options.ts";
import { type AgentHost, type Conn, instanceRef, invalid, locatorOf } from "./host.ts";
import { modeState } from "./modes.ts";
import { ListParams, listPast, ResumeParams } from "./past-sessions.ts";
import { acpInteraction } from "./permission.ts";
import { checkCwd, placeCheck } from "./link-places.ts";
import { linkRoot, sessionRefusal } from "./places.ts";
import { openRefusal } from "./session-logins.ts";
import { commandsUpdate, runPrompt } from "./prompt.ts";
import { storeRequestError } from "./store-errors.ts";
import { sessionUpdates } from "./updates.ts";
import { sessionsLoading } from "./sessions-loading.ts";
import { closeSession } from "./session-close.ts";
import { ForkParams, forkSession } from "./session-fork.ts";
import { checkSessionCwd } from "./session-cwd.ts";
import { loadSession } from "./session-load.ts";
import type { SessionsHere } from "./sessions-here.ts";
import { editorRefusal, linkRefusal } from "./whereabouts.ts";


// Built when a request carries _meta (most carry none): config/schema.ts, where the config's Mode and
// Effort live, is not loaded for them (bench/START.md).
const NewSessionMeta = lazily(() =>
  z
    .looseObject({
      mode: z.enum(MODES).optional(),
      model: z.string().min(1).optional(),
      lembas_model: z.string().min(1).optional(),
      effort: z.enum(EFFORTS).optional(),
    })
    .nullish(),
);

/** The longest turnId the device keeps (the spec's turns). */
const MAX_TURN_ID = 200;

const PromptMeta = lazily(() => z.looseObject({ lembas: z.looseObject({ turnId: z.unknown().optional() }).nullish() }).nullish());

/**
 * Serves the Agent Client Protocol on one connection: initialize, session/new, session/prompt,
 * session/set_mode, session/cancel, session/update from each session's bus, and on the link the
 * _lembas methods and events.
 */
export function serveAcp(stream: Stream, host: AgentHost) {
  if (host.transport === "link" && !host.link) throw new Error("a link connection is served with the link's methods (src/acp/link.ts)");
  let client: ClientInfo = { lembas: false, protocol: 0 };
  let fs: EditorFs = editorFs(null);
  const owner = {};
  /** Each attached session, with what its requests ask again of its place (on the link) and how to let go of it. */
  const attached = new Map<string, { session: Session; recheck: (() => string | null) | null; detach: () => void }>();
  const loading = sessionsLoading();
  /** Initialize's follow-up, not run yet; and whether the connection was let go of (nothing attaches after). */
  let initializing: ReturnType<typeof setTimeout> | null = null;
  let letGo = false;

  const detach = (sessionId: string) => {
    const entry = attached.get(sessionId);
    if (!entry) return;
    entry.detach();
    attached.delete(sessionId);
    host.owners?.drop(sessionId, owner);
  };

  /** `judged`: attached under the link's rules of place, asked again at each request (a terminal's share is not). */
  const attach = (session: Session, cx: acp.AgentContext, judged = host.transport === "link") => {
    // A session made or opened for a connection already let go of stays unattached (the sweep lets go of it).
    if (letGo || attached.has(session.id)) return;
    // First: a session another login's link owns is not taken (it throws before anything is attached).
    host.owners?.take(session.id, owner, () => detach(session.id), host.connection);
    const updates = sessionUpdates(session, (update) => {
      void cx.notify("session/update", { sessionId: session.id, update } as acp.SessionNotification).catch(() => {});
    }, { editor: host.transport === "stdio" });
    const forward = coalescer((event: EngineEvent) => {
      updates.event(event);
      if (client.lembas && host.transport === "link") void cx.notify("_lembas/event", { sessionId: session.id, event: forClient(event, host) }).catch(() => {});
    });
    const unsubscribe = session.bus.subscribe(forward);
    const unwatch = watchSettings(session, host, (update) => {
      void cx.notify("session/update", { sessionId: session.id, update } as acp.SessionNotification).catch(() => {});
    });
    const announce = (request: PermissionRequest) => {
      forward.flush();
      updates.tools.asked(request);
    };
    const release = host.link ? host.link.attachDesk(conn, session, cx) : attachEditor(session, cx, announce);
    attached.set(session.id, {
      session,
      recheck: judged ? placeCheck(session, host.config.remote, host.db) : null,
      detach: () => {
        unsubscribe();
        unwatch();
        updates.tools.close();
        release();
      },
    });
    if (host.connection) markGiven(host.db, session.id, host.connection);
  };

  /** On stdio: approvals asked of the editor, its files where it offers them; questions and plans have nobody to answer. */
  const attachEditor = (session: Session, cx: acp.AgentContext, announce: (request: PermissionRequest) => void) => {
    const interaction = acpInteraction(cx, announce);
    session.interaction = interaction;
    const returnFiles = lendEditorFiles(session, cx, fs);
    return () => {
      if (session.interaction === interaction) session.interaction = null;
      returnFiles();
    };
  };

  const conn: Conn = {
    host,
    client: () => client,
    attached: (id) => attached.get(id)?.session ?? null,
    downgrade: () => {
      client = { ...client, protocol: 1 };
    },
    session(sessionId, cx) {
      const here = attached.get(sessionId);
      if (here) {
        // Untrusted since it was attached: refused from its next request on (a running turn goes on).
        const refused = here.recheck?.() ?? null;
        if (refused) throw invalid(refused);
        return here.session;
      }
      if (host.transport !== "link" || host.attachedOnly) throw invalid(`there is no session ${sessionId} on this connection`);
      const row = getSession(host.db, sessionId);
      if (!row) throw invalid(`there is no session ${sessionId} on this device`);
      const refused = openRefusal(host, sessionId) ?? sessionRefusal(row, host.config.remote, host.db) ?? linkRefusal(locatorOf(host).where(sessionId), sessionId);
      if (refused) throw invalid(refused);
      let session: Session | null;
      try {
        session = host.engine.open(sessionId, { maxMode: host.maxMode });
      } catch (error) {
        throw storeRequestError(error, host) ?? invalid(errorMessage(error));
      }
      if (!session) throw invalid(`there is no session ${sessionId} on this device`);
      attach(session, cx);
      commandsUpdate(session, cx, host);
      return session;
    },
  };

  /** A session of the store opened for an editor that resumes it; one held by a live process is refused. */
  const resumed = (sessionId: string, mcpServers: readonly McpServerSpec[]): Session => {
    // Through the service, a session live in its engine for another front end is not this editor's to take.
    const refused = host.transport === "stdio" && host.locator && !loading.has(sessionId) ? editorRefusal(host.locator.where(sessionId), sessionId) : null;
    if (refused) throw invalid(refused);
    let session: Session | null;
    try {
      session = host.engine.open(sessionId, { maxMode: host.maxMode, mcpServers });
    } catch (error) {
      throw storeRequestError(error, host) ?? invalid(errorMessage(error));
    }
    if (!session) throw invalid(`there is no session ${sessionId} on this device: session/list names those there are`);
    return session;
  };

  const here: SessionsHere = {
    host,
    attached: conn.attached,
    holds: (id) => attached.has(id) || loading.has(id),
    loading: loading.begin,
    attach,
    detach,
    open: resumed,
  };
  const app = acp
    .agent({ name: "lembas" })
    .onRequest("initialize", ({ params, client: cx }) => {
      client = detectClient(params.clientCapabilities);
      fs = editorFs(params.clientCapabilities);
      // Acted on after the answer; a connection that closed first (the link dropped at once) is let be.
      initializing = setTimeout(() => {
        initializing = null;
        if (letGo || connection.signal.aborted) return;
        host.onInitialized?.(cx, client);
        for (const id of host.adopt?.() ?? []) {
          try {
            conn.session(id, cx);
          } catch {
            // deleted, or no longer allowed here: the client will hear of it when it asks
          }
        }
      }, 0);
      return initializeResult({ transport: host.transport, config: host.config, protocol: host.protocol, limits: host.limits, connection: host.connection });
    })
    .onRequest("session/new", async ({ params, client: cx }) => {
      if (host.attachedOnly) throw invalid("sessions are not made on this connection");
      const cwd = checkCwd(params.cwd, host);
      const requested = newSessionMeta(params._meta);
      // The editor's MCP servers (src/mcp/from-editor.ts), started with the session's others.
      const servers = editorServers(params.mcpServers);
      if (!servers.ok) throw invalid(servers.error);
      if (host.transport === "link" && servers.specs.length > 0) throw invalid(LINK_SERVERS_REFUSAL);
      let session: Session;
      try {
        if (requested.model) await refuseAnotherLogin(host, requested.model);
        const model = requested.model ?? (requested.lembas_model ? await instanceRef(host, requested.lembas_model) : undefined);
        session = await host.engine.create({
          cwd,
          ...(host.transport === "link" ? { root: linkRoot(cwd, host.config.remote, host.db) } : {}),
          mode: cappedMode(requested.mode ?? host.config.mode, host.maxMode),
          maxMode: host.maxMode,
          origin: host.transport,
          mcpServers: servers.specs,
          ...(model ? { model } : {}),
          ...(requested.effort ? { effort: requested.effort } : {}),
        });
      } catch (error) {
        throw storeRequestError(error, host) ?? invalid(errorMessage(error));
      }
      attach(session, cx);
      commandsUpdate(session, cx, host);
      return {
        sessionId: session.id,
        modes: modeState(session.mode, host.maxMode),
        configOptions: await configOptions(session, host),
        _meta: { lembas: { model: session.model, mode: session.mode, effort: session.effort } },
      };
    })
    .onRequest("session/prompt", async ({ params, signal, client: cx }) => {
      const session = conn.session(params.sessionId, cx);
      const turnId = turnIdOf(params._meta) ?? newTurnId();
      // The request is aborted by $/cancel_request (which stops this request's own turn, running or
      // still waiting, and no other), and also when the connection closes: a link that drops must
      // not cancel the turn (it goes on, and the client follows it on the next link).
      const onAbort = () => setTimeout(() => !connection.signal.aborted && session.cancelTurn(turnId), 0);
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        const answer = await runPrompt(session, params.prompt as Block[], turnId, host, cx);
        return host.transport === "link" ? linkAnswer(answer) : answer;
      } catch (error) {
        throw storeRequestError(error, host) ?? error;
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
    })
    .onRequest("session/set_mode", ({ params, client: cx }) => {
      const session = conn.session(params.sessionId, cx);
      if (!isOneOf(MODES, params.modeId)) throw invalid(`modeId must be one of ${MODES.join(", ")}`);
      session.setMode(cappedMode(params.modeId, host.maxMode));
      return {};
    })
    .onRequest("session/list", ({ params }) => {
      if (host.transport !== "stdio") throw invalid("session/list is served to an editor on stdio; the link has its own sessions");
      const parsed = ListParams().safeParse(params ?? {});
      if (!parsed.success) throw invalid("session/list takes an optional cwd and cursor, both strings");
      return listPast(host.db, parsed.data);
    })
    .onRequest("session/resume", async ({ params, client: cx }) => {
      if (host.transport !== "stdio") throw invalid("session/resume is served to an editor on stdio; the link has its own sessions");
      const parsed = ResumeParams().safeParse(params);
      if (!parsed.success) throw invalid("session/resume takes a sessionId and a cwd");
      checkSessionCwd(host.db, parsed.data.sessionId, parsed.data.cwd, "resume");
      // The editor passes its MCP servers again, as at session/new: a session opened from the store
      // starts them (one already running here keeps those it has).
      const servers = editorServers(parsed.data.mcpServers);
      if (!servers.ok) throw invalid(servers.error);
      const session = attached.get(parsed.data.sessionId)?.session ?? resumed(parsed.data.sessionId, servers.specs);
      attach(session, cx);
      commandsUpdate(session, cx, host);
      return {
        modes: modeState(session.mode, host.maxMode),
        configOptions: await configOptions(session, host),
        _meta: { lembas: { model: session.model, mode: session.mode, effort: session.effort } },
      };
    })
    .onRequest("session/load", ({ params, client: cx }) => loadSession(here, params, cx))
    .onRequest("session/close", ({ params }) => closeSession(here, params))
    .onRequest("session/fork", (params: unknown) => ForkParams().parse(params), ({ params, client: cx }) => forkSession(here, params, cx))
    .onRequest("session/set_config_option", async ({ params, client: cx }) => {
      const parsed = SetConfigOption().safeParse(params);
      if (!parsed.success) throw invalid("session/set_config_option takes a sessionId, a configId and a value");
      const request = parsed.data;
      const session = conn.session(request.sessionId, cx);
      await setConfigOption(session, host, request.configId, request.value);
      return { configOptions: await configOptions(session, host) };
    })
    .onNotification("session/cancel", ({ params }) => {
      attached.get(params.sessionId)?.session.cancel();
    });
  const terminals = host.link?.register(app, conn) ?? null;

  const connection = connectAgent(app, stream, refuseServers);
  return {
    connection,
    /** The sessions attached here, and those a session/load here is replaying. */
    sessions: () => [...new Set([...attached.keys(), ...loading.ids()])],
    /** Attaches a session the host already runs (a terminal's shared one): its events go out on this connection. */
    attach(session: Session) {
      if (attached.has(session.id)) return;
      attach(session, connection.client, false);
      commandsUpdate(session, connection.client, host);
    },
    /** Lets go of one session (a terminal stops sharing it). */
    detach,
    /** Lets go of every session (the link dropped): their turns go on, with nobody attached. */
    detachAll() {
      letGo = true;
      if (initializing) clearTimeout(initializing);
      terminals?.closeAll();
      for (const id of [...attached.keys()]) detach(id);
    },
    /** Cancels every attached session's turns and lets go of them (end of stdin, shutdown). */
    async close() {
      letGo = true;
      if (initializing) clearTimeout(initializing);
      terminals?.closeAll();
      const sessions = [...attached.values()].map((a) => a.session);
      for (const session of sessions) session.close();
      await Promise.all(sessions.map((s) => s.idle()));
      for (const id of [...attached.keys()]) detach(id);
    },
  };
}

/** What session/new's _meta asks for (absent: nothing); one the schema refuses is -32602 naming the key. */
function newSessionMeta(meta: unknown): z.infer<ReturnType<typeof NewSessionMeta>> & object {
  if (meta === undefined || meta === null) return {};
  const parsed = NewSessionMeta().safeParse(meta);
  if (!parsed.success) throw invalid(`_meta: ${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}`);
  return parsed.data ?? {};
}

/**
 * A prompt's turnId (absent: the device makes one). One the device would not keep as it is — not a
 * string, empty, longer than it keeps — is refused: replaced, a client's retry would run twice.
 */
function turnIdOf(meta: unknown): string | undefined {
  if (meta === undefined || meta === null) return undefined;
  const parsed = PromptMeta().safeParse(meta);
  if (!parsed.success) throw invalid("_meta and _meta.lembas must be objects");
  const turnId = parsed.data?.lembas?.turnId;
  if (turnId === undefined) return undefined;
  if (typeof turnId !== "string") throw invalid(`_meta.lembas.turnId must be a string, not ${turnId === null ? "null" : typeof turnId}`);
  if (turnId.length === 0 || turnId.length > MAX_TURN_ID) throw invalid(`_meta.lembas.turnId must be 1 to ${MAX_TURN_ID} characters long (this one has ${turnId.length})`);
  return turnId;
}

/**
 * session/prompt's answer on the link, whose stopReason is one of the spec's four: a refusal is
 * end_turn, and says it was one (the model's words came as its text). An editor keeps ACP's refusal.
 */
function linkAnswer<T extends { stopReason: string; _meta: { lembas: Record<string, unknown> } }>(answer: T): T {
  if (answer.stopReason !== "refusal") return answer;
  return { ...answer, stopReason: "end_turn", _meta: { ...answer._meta, lembas: { ...answer._meta.lembas, message: REFUSED } } };
}

/** What the link's answer says of a turn the model refused. */
export const REFUSED = "the model refused to answer";

/**
 * session/new's `model` on the link names a ref of the device's: one of another login's models
 * would run on that account, so it is refused, as _lembas/configure (which takes this instance's
 * names only) refuses it. A ref that does not resolve is left to the session's own check.
 */
async function refuseAnotherLogin(host: AgentHost, ref: string): Promise<void> {
  if (host.transport !== "link") return;
  const connection = await host.engine.models.resolve(ref).then(
    (model) => model.connection,
    () => null,
  );
  if (connection === null || connection === host.connection || !getLogin(host.db, connection)) return;
  throw invalid(`model ${ref} is served by ${connection}, another instance this device is logged in to: a session made here uses this instance's models (lembas_model) or the device's own`);
}

/** The model event on the link also says whether the model is this link's instance's. */
function forClient(event: EngineEvent, host: AgentHost): EngineEvent | (EngineEvent & { instance: boolean }) {
  if (event.type !== "model") return event;
  return { ...event, instance: host.connection !== null && event.connection === host.connection };
}

/** session/new's and session/resume's mcpServers, said what is wrong with before ACP's params check answers a terse -32602 for them. */
function refuseServers(method: string, params: unknown): string | null {
  if (!["session/new", "session/resume", "session/load", "session/fork"].includes(method) || typeof params !== "object" || params === null || !("mcpServers" in params)) return null;
  const servers = editorServers(params.mcpServers);
  return servers.ok ? null : servers.error;
}
