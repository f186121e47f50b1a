/**
 * Where a session is held, as every handler asks it (open, prompt, delete, status; the service's
 * locator and deletes too): not there; here, in this process's engine, and by which of its front
 * ends (a link, an editor's connection, the terminal's screen); by another live process; or by
 * nobody (what a dead holder left settled in the same transaction: store/placement.ts). The
 * engine says what it runs, the store the rest; the host says which front end has a session open
 * (the service: its links' owners and its editors, service/locator.ts).
 */
import type { Engine } from "../engine/engine.ts";
import type { Session } from "../engine/session.ts";
import type { Db } from "../store/db.ts";
import { type Hold, placeUnrun, type TurnsNow } from "../store/placement.ts";
import type { SessionRow } from "../store/sessions.ts";

/** Which front end of this process has a session open. */
export type FrontEnd = "link" | "editor" | "terminal";

export type Whereabouts =
  | { at: "absent" }
  | { at: "here"; session: Session; by: FrontEnd | null }
  | { at: "elsewhere"; row: SessionRow; hold: Hold; turns: TurnsNow }
  | { at: "nobody"; row: SessionRow; turns: TurnsNow };

/** What says where a session is held; it routes nothing (the link's requests are routed by service/router.ts). */
export interface SessionLocator {
  where(sessionId: string): Whereabouts;
}

/** A process's locator: its engine, the store, and `frontEnd` saying which of its front ends has a session open. */
export function processLocator(engine: Engine, db: Db, frontEnd: (sessionId: string) => FrontEnd | null = () => null): SessionLocator {
  return {
    where(sessionId) {
      const session = engine.get(sessionId);
      if (session) return { at: "here", session, by: frontEnd(sessionId) };
      return placeUnrun(db, sessionId);
    },
  };
}

/** The sentence for a session an editor's connection has open in this process. */
export function inEditorSentence(sessionId: string): string {
  return `session ${sessionId} is open in an editor on this device`;
}

/**
 * Why a link may not open, prompt or delete a session (a sentence), or null: an editor's session
 * is the editor's, though the service's engine runs it. Another live process's is refused by the
 * engine's hold (store/holds.ts), with its own sentence.
 */
export function linkRefusal(where: Whereabouts, sessionId: string): string | null {
  if (where.at === "here" && where.by === "editor") return `${inEditorSentence(sessionId)}: the web may open it once the editor lets go of it`;
  return null;
}

/**
 * Why an editor's connection to the service may not take a session up (a sentence), or null: one
 * the service runs for another front end — another editor, or a link — is theirs, as a session
 * another process holds is refused to `serve --stdio` with its own engine (store/holds.ts).
 */
export function editorRefusal(where: Whereabouts, sessionId: string): string | null {
  if (where.at !== "here" || where.by === null) return null;
  if (where.by === "editor") return `${inEditorSentence(sessionId)} (another editor's connection to the lembas service): open it there, or here once that editor lets go of it`;
  return `session ${sessionId} is open in the lembas service for the web: open it here once the web lets go of it`;
}

/** `held` as `_lembas/session/status` says it: here (this process, for the web), terminal (another front end or process), none. */
export function heldSaid(where: Whereabouts): "here" | "terminal" | "none" {
  if (where.at === "here") return where.by === "editor" || where.by === "terminal" ? "terminal" : "here";
  return where.at === "elsewhere" ? "terminal" : "none";
}
