import type { StoredMessage } from "../engine/records.ts";
import type { Db } from "../store/db.ts";
import { heldElsewhere } from "../store/holds.ts";
import { listMessages } from "../store/messages.ts";
import { getSession } from "../store/sessions.ts";
import { historyTurns } from "../transcript/history-turns.ts";
import type { FirstFrame } from "./first-frame.ts";
import { storedByHand } from "./history-rows.ts";
import { keptRuns } from "./kept-runs.ts";
import { latestIn, type Opening } from "./opening.ts";
import { Transcript } from "./transcript.ts";

/**
 * The history of the session `lembas -c` or `-r ID` resumes, drawn on the first frame before the
 * app's modules are loaded (most of what a resumed session waited for before it showed): read from
 * the store as the engine reads it (Session.messages), drawn by the transcript the app takes over,
 * so that the app draws nothing of it again. Returns the opening to open: a `-c` pinned to the
 * session drawn. A session another live process holds (the service, whose turn may still write to
 * it before handing it over) is left for the app to draw once it is open, as is a fork's.
 */
export async function drawResumedHistory(frame: FirstFrame, db: Db, cwd: string, opening: Opening): Promise<Opening> {
  if (opening.kind !== "continue" && opening.kind !== "resume") return opening;
  const id = opening.kind === "continue" ? latestIn(db, cwd) : opening.id;
  const row = getSession(db, id);
  if (!row || heldElsewhere(db, id)) return opening;
  const turns = historyTurns(await storedMessages(db, id), { steps: true });
  if (turns.length === 0) return opening;
  // Every tool's schema and title are loaded only for a history that has tool calls to title.
  const hasCalls = turns.some((turn) => turn.role === "assistant" && turn.tools.length > 0);
  const calls = hasCalls ? (await import("./stored-calls.ts")).storedCalls : null;
  const transcript = new Transcript(frame.theme);
  transcript.cwd = row.cwd;
  transcript.root = row.root;
  transcript.line(resumedLine(row.id, row.title));
  transcript.history(turns, calls, keptRuns(db, row.id, frame.theme));
  frame.showHistory(row.id, transcript);
  return { kind: "resume", id: row.id };
}

/** The session's conversation as Session.messages() reads it: by hand when every row allows it, else with the schemas (zod). */
async function storedMessages(db: Db, id: string): Promise<StoredMessage[]> {
  const rows = listMessages(db, id);
  const byHand = storedByHand(rows);
  if (byHand) return byHand;
  const { parseStored } = await import("../engine/records.ts");
  return rows.map(parseStored).filter((m): m is StoredMessage => m !== null);
}

/** The line above a resumed session's history. */
export function resumedLine(id: string, title: string): string {
  return `resumed session ${id}${title ? `: ${title}` : ""}`;
}
