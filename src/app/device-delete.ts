/**
 * Deleting a session from the device (the terminal's /delete and /sessions delete, `lembas
 * sessions delete|prune`): asked of the running service first (`POST /v1/delete`, deletes.ts),
 * which deletes it wherever it is held and tells the links at once; with no service, deleted here
 * and kept in the outbox for the next link's initialize — unless another live process holds it,
 * which is then said, with what the person can do.
 */
import { existsSync } from "node:fs";
import type { Engine } from "../engine/engine.ts";
import { errorMessage } from "../errors.ts";
import type { Db } from "../store/db.ts";
import { keepDelete } from "../store/deletes.ts";
import { heldElsewhere, heldElsewhereSentence } from "../store/placement.ts";
import { listLogins } from "../store/logins.ts";
import { givenTo } from "../store/marks.ts";
import { DeleteAnswer } from "./ipc-protocol.ts";

export type AskedDelete = DeleteAnswer | { none: string };

/** How long a delete may take: a terminal that shares the session stops its turn first. */
const DELETE_TIMEOUT_MS = 15_000;

/** Deletes a session wherever it is held on this device. A failing store throws. */
export async function deleteAnywhere(deps: { engine: Engine; db: Db; socketPath: string }, sessionId: string): Promise<DeleteAnswer> {
  const asked = await askServiceToDelete(deps.socketPath, sessionId);
  if (!("none" in asked)) return asked;
  const hold = heldElsewhere(deps.db, sessionId);
  if (hold) return { refused: `${heldElsewhereSentence(hold)} and ${asked.none} to reach it: delete it there, or quit it there and delete again` };
  return { deleted: await deleteHere(deps.engine, deps.db, sessionId) };
}

/**
 * Deletes a session this process may delete, and keeps a delete for every login: a chat may be
 * there for it wherever the web was given it or listed the device's sessions.
 */
export async function deleteHere(engine: Engine, db: Db, sessionId: string): Promise<boolean> {
  // Read first: the marks go with the session.
  const logins = [...new Set([...listLogins(db).map((l) => l.name), ...givenTo(db, sessionId)])];
  const deleted = await engine.delete(sessionId);
  if (deleted && logins.length > 0) keepDelete(db, sessionId, logins);
  return deleted;
}

/**
 * Deletes an empty session a terminal leaves (-c, /sessions, quit): kept as a delete only for
 * the logins whose web had been shown it (announced, opened). Whether any had.
 */
export async function discardEmpty(engine: Engine, db: Db, sessionId: string): Promise<boolean> {
  const shown = givenTo(db, sessionId);
  const deleted = await engine.delete(sessionId);
  if (deleted && shown.length > 0) keepDelete(db, sessionId, shown);
  return shown.length > 0;
}

/** Asks the service on `socketPath` to delete a session; `none` when no service answers. */
export async function askServiceToDelete(socketPath: string, sessionId: string, timeoutMs = DELETE_TIMEOUT_MS): Promise<AskedDelete> {
  if (!existsSync(socketPath)) return { none: "no service runs" };
  let response: Response;
  try {
    response = await fetch("http://lembas/v1/delete", {
      unix: socketPath,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sessionId }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === "TimeoutError") return { refused: `the service did not answer the delete of session ${sessionId} within ${timeoutMs / 1000} s: try again` };
    return { none: `no service answers (${errorMessage(error)})` };
  }
  const body: unknown = await response.json().catch(() => null);
  const answer = DeleteAnswer.safeParse(body);
  if (response.ok && answer.success) return answer.data;
  // A service from before deletes were asked of it.
  if (response.status === 404) return { none: "the running service is of a version that cannot delete it" };
  return { refused: `the service would not delete session ${sessionId} (HTTP ${response.status})` };
}
