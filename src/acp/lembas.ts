import { isAbsolute } from "node:path";
import { z } from "zod";
import { EFFORTS } from "../config/key-values.ts";
import { cappedMode } from "../engine/mode-cap.ts";
import { parseStored, type StoredMessage } from "../engine/records.ts";
import { cleanTitle } from "../engine/side-calls.ts";
import { errorMessage, UserError } from "../errors.ts";
import { availableCommands, loadCommands } from "../project/commands.ts";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../project/files.ts";
import type { acp } from "../rpc/agent.ts";
import { keepDelete } from "../store/deletes.ts";
import { givenTo } from "../store/marks.ts";
import { listMessages } from "../store/messages.ts";
import { getSession } from "../store/sessions.ts";
import { historyTurns } from "../transcript/history-turns.ts";
import { boundedHistory } from "./history-answer.ts";
import { insideRoots, judge, linkRoot, listing, places } from "./places.ts";
import { knowRefusal, loginRefusal } from "./session-logins.ts";
import { type Conn, instanceRef, invalid, locatorOf } from "./host.ts";
import { heldSaid, linkRefusal } from "./whereabouts.ts";
import { storeRequestError } from "./store-errors.ts";

const SessionRef = z.object({ sessionId: z.string().min(1) });

/**
 * Wraps a handler so a UserError (a sentence about the request) answers -32602, and a failing
 * store -32603 with its sentence (logged).
 */
function asParams<T>(host: Conn["host"], run: () => Promise<T> | T): Promise<T> {
  return Promise.resolve()
    .then(run)
    .catch((error: unknown) => {
      if (error instanceof UserError) throw invalid(error.message);
      throw storeRequestError(error, host) ?? error;
    });
}

/** The _lembas/* methods of the link (spec/acp.md), on one connection. */
export function registerLembasMethods(app: acp.AgentApp, conn: Conn): void {
  const { host } = conn;
  const { db, config } = host;

  app.onRequest("_lembas/directories", z.object({ path: z.string().optional() }), ({ params }) => {
    if (params.path === undefined || params.path === "") return places(config.remote, db);
    if (!isAbsolute(params.path)) throw invalid(`path must be absolute, not ${JSON.stringify(params.path)}`);
    if (!insideRoots(params.path, config.remote)) {
      throw invalid(`${params.path} is outside the device's remote roots (${config.remote.roots.join(", ")})`);
    }
    return listing(params.path, config.remote, db);
  });

  app.onRequest(
    "_lembas/configure",
    SessionRef.extend({ model: z.string().min(1).optional(), effort: z.enum(EFFORTS).optional() }),
    ({ params, client }) =>
      asParams(host, async () => {
        const session = conn.session(params.sessionId, client);
        const model = params.model ? await instanceRef(host, params.model) : undefined;
        try {
          return await session.configure({ ...(model ? { model } : {}), ...(params.effort ? { effort: params.effort } : {}) });
        } catch (error) {
          throw invalid(errorMessage(error));
        }
      }),
  );

  app.onRequest("_lembas/steer", SessionRef.extend({ text: z.string().min(1), messageId: z.string().optional() }), ({ params, client }) =>
    asParams(host, () => {
      const session = conn.session(params.sessionId, client);
      // A terminal's own turn may run above the device's limit: the web's words must not steer it.
      const running = session.runningMode;
      if (running && cappedMode(running, host.maxMode) !== running) {
        throw invalid(`the running turn works in ${running} mode, above what the web may use here (${host.maxMode}): send it as a prompt instead`);
      }
      return session.steer(params.text, params.messageId);
    }),
  );

  app.onRequest("_lembas/commands", z.object({ sessionId: z.string().min(1).optional(), cwd: z.string().min(1).optional() }), ({ params, client }) => {
    const root = params.sessionId ? conn.session(params.sessionId, client).root : params.cwd ? placeRoot(params.cwd) : null;
    if (!root) throw invalid("say sessionId or cwd");
    return { commands: availableCommands(loadCommands({ root, configDir: host.paths.configDir })) };
  });

  /** A composer's directory with no session yet: the same rules as session/new, then the root it would take. */
  const placeRoot = (cwd: string): string => {
    const verdict = judge(cwd, config.remote, db);
    if (!verdict.accepted) throw invalid(verdict.reason);
    return linkRoot(cwd, config.remote, db);
  };

  app.onRequest(
    "_lembas/files/search",
    z.object({ sessionId: z.string().min(1).optional(), cwd: z.string().min(1).optional(), query: z.string(), limit: z.number().int().optional() }),
    async ({ params, client }) => {
      if (params.limit !== undefined && (params.limit < 1 || params.limit > MAX_LIMIT)) throw invalid(`limit is 1 to ${MAX_LIMIT}, not ${params.limit}`);
      const root = params.sessionId ? conn.session(params.sessionId, client).cwd : params.cwd ? placeDir(params.cwd) : null;
      if (!root) throw invalid("say sessionId or cwd");
      if (!host.files) throw invalid("the file picker is not available here");
      const files = await host.files.search(root, { query: params.query, limit: params.limit ?? DEFAULT_LIMIT });
      return { root, files };
    },
  );

  /** A composer's directory with no session yet, checked as session/new would check it. */
  const placeDir = (cwd: string): string => {
    const verdict = judge(cwd, config.remote, db);
    if (!verdict.accepted) throw invalid(verdict.reason);
    return cwd;
  };

  app.onRequest("_lembas/session/history", SessionRef, ({ params }) => {
    const row = getSession(db, params.sessionId);
    if (!row) throw invalid(`there is no session ${params.sessionId} on this device`);
    mayKnow(row);
    const messages = listMessages(db, row.id)
      .map(parseStored)
      .filter((m): m is StoredMessage => m !== null);
    return { sessionId: row.id, title: row.title, root: row.root, turns: boundedHistory(historyTurns(messages)) };
  });

  app.onRequest("_lembas/session/status", SessionRef, ({ params }) => {
    const where = locatorOf(host).where(params.sessionId);
    if (where.at === "absent") return { sessionId: params.sessionId, exists: false, held: "none", busy: false, title: "", queued: [] };
    const held = heldSaid(where);
    if (where.at === "here") {
      // A session the service runs for the web is any link's of its login to follow; an editor's or the terminal's only under the rules of history.
      const refused = held === "here" ? loginRefusal(host, where.session.id) : knowRefusal(conn, where.session);
      if (refused) throw invalid(refused);
      const status = where.session.status();
      return {
        sessionId: where.session.id,
        exists: true,
        held,
        busy: status.busy,
        title: where.session.title,
        ...(status.turnId ? { turnId: status.turnId } : {}),
        queued: status.queued,
        ...(status.lastTurnId ? { lastTurnId: status.lastTurnId } : {}),
      };
    }
    const { row, turns } = where;
    mayKnow(row);
    return {
      sessionId: row.id,
      exists: true,
      held,
      busy: turns.running !== undefined || turns.queued.length > 0,
      title: row.title,
      ...(turns.running ? { turnId: turns.running } : {}),
      queued: turns.queued,
      ...(turns.lastDone ? { lastTurnId: turns.lastDone } : {}),
    };
  });

  /** Whether this link's client may read a session (history, status): the rule delete applies (session-logins.ts). */
  function mayKnow(row: { id: string; root: string }): void {
    const refused = knowRefusal(conn, row);
    if (refused) throw invalid(refused);
  }

  app.onRequest("_lembas/session/delete", SessionRef, async ({ params }) => {
    const row = getSession(db, params.sessionId);
    if (!row) return { deleted: false };
    const login = host.connection ?? "";
    mayKnow(row);
    const refused = linkRefusal(locatorOf(host).where(row.id), row.id);
    if (refused) throw invalid(refused);
    const others = givenTo(db, row.id).filter((l) => l !== login);
    let deleted: boolean;
    try {
      deleted = await (host.deleteSession ?? ((id) => host.engine.delete(id)))(row.id);
    } catch (error) {
      throw invalid(errorMessage(error));
    }
    host.owners?.release(row.id);
    host.desks?.delete(row.id);
    // A host that deletes in its own way keeps the deletes itself.
    if (!host.deleteSession && others.length > 0) keepDelete(db, row.id, others);
    return { deleted };
  });

  app.onRequest("_lembas/session/compact", SessionRef, ({ params, client }) =>
    asParams(host, async () => {
      const session = conn.session(params.sessionId, client);
      if (session.busy) throw new UserError("the session is working: compact it when the turn has ended");
      return session.compact();
    }),
  );

  app.onRequest("_lembas/session/title", SessionRef.extend({ title: z.string() }), ({ params, client }) =>
    asParams(host, () => {
      if (params.title.length > 200) throw new UserError(`a title is at most 200 characters (this one has ${params.title.length})`);
      if (!cleanTitle(params.title)) throw new UserError("a title cannot be empty (control characters do not count)");
      return { title: conn.session(params.sessionId, client).setTitle(params.title) };
    }),
  );
}
