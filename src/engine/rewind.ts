import { UserError } from "../errors.ts";
import type { Db } from "../store/db.ts";
import { forgetPreImages } from "../store/undo.ts";
import type { StoredMessage } from "./records.ts";
import { type Restored, restoreTurn, type Skipped } from "./undo-restore.ts";

/** What a rewind takes back: the code and the conversation, the conversation only, or the code only. */
export type RewindWhat = "both" | "conversation" | "code";
export const REWIND_WHATS: readonly RewindWhat[] = ["both", "conversation", "code"];

/** A turn the session can go back to before (or fork through): the prompt that started it. */
export type RewindPoint = { turnId: string; seq: number; prompt: string };

/** What a rewind did: the prompt of the turn it went back to before, how many turns, the files put back and those left alone. */
export type Rewound = Restored & { prompt: string; turns: number; what: RewindWhat; seq: number };

/** The session's turns as a person picks among them, oldest first: each prompt the person sent (not a steering message). */
export function rewindPoints(messages: readonly StoredMessage[]): RewindPoint[] {
  const points: RewindPoint[] = [];
  for (const m of messages) {
    if (m.role !== "user" || m.body.steer || !m.turnId) continue;
    points.push({ turnId: m.turnId, seq: m.seq, prompt: m.body.display ?? m.body.text });
  }
  return points;
}

/** The point of a turn id, or a sentence saying there is none. */
export function pointOf(messages: readonly StoredMessage[], turnId: string): RewindPoint {
  const point = rewindPoints(messages).find((p) => p.turnId === turnId);
  if (!point) throw new UserError(`there is no turn ${turnId} in this session (/rewind lists its turns)`, 2);
  return point;
}

/** The last seq a fork through this turn keeps: up to the next prompt (null: the whole conversation). */
export function forkEnd(messages: readonly StoredMessage[], turnId: string | null): number | null {
  if (turnId === null) return null;
  const points = rewindPoints(messages);
  const at = points.findIndex((p) => p.turnId === turnId);
  if (at < 0) throw new UserError(`there is no turn ${turnId} in this session (/fork lists its turns)`, 2);
  const next = points[at + 1];
  return next ? next.seq - 1 : null;
}

type Place = { db: Db; sessionId: string; root: string; stateDir: string };

/**
 * Puts the code back to before the chosen turn: each turn from it on is undone newest first, through
 * undo's stamped pre-images, so each file comes back as the turn before left it, and one changed since
 * is left alone and named (restoreTurn). A file a later turn's pass left is left by every earlier
 * turn's pass too: it may match what an earlier turn left (the person set it back by hand), and
 * restoring it then would replace their work. The conversation is cut by the caller (it holds the history).
 */
export function rewindCode(place: Place, messages: readonly StoredMessage[], point: RewindPoint): Restored {
  const files = new Set<string>();
  const skipped: Skipped[] = [];
  const leave = new Set<string>();
  const removedDirs: string[] = [];
  const putBackDirs: string[] = [];
  let trash: string | undefined;
  for (const turnId of turnsFrom(messages, point).reverse()) {
    const restored = restoreTurn(place.db, place.sessionId, turnId, place.root, place.stateDir, leave);
    for (const file of restored.files) files.add(file);
    skipped.push(...restored.skipped);
    removedDirs.push(...(restored.removedDirs ?? []));
    putBackDirs.push(...(restored.putBackDirs ?? []));
    trash = restored.trash ?? trash;
  }
  // A directory one pass made again and another removed (or the other way) is as it was: neither is said.
  const both = new Set(removedDirs.filter((dir) => putBackDirs.includes(dir)));
  const removed = removedDirs.filter((dir) => !both.has(dir));
  const putBack = putBackDirs.filter((dir) => !both.has(dir));
  // A file a later pass put back but an earlier one could not is named once, as left.
  const left = new Set(skipped.map((s) => s.path));
  return {
    files: [...files].filter((f) => !left.has(f)),
    skipped: dedupe(skipped),
    ...(trash ? { trash } : {}),
    ...(removed.length > 0 ? { removedDirs: removed } : {}),
    ...(putBack.length > 0 ? { putBackDirs: putBack } : {}),
  };
}

/**
 * The conversation only: the files stay as they are, and the undo data of the turns cut is dropped,
 * as no undo or rewind could reach it again (both start from the turns the conversation holds).
 */
export function leaveCode(place: Place, messages: readonly StoredMessage[], point: RewindPoint): Restored {
  for (const turnId of turnsFrom(messages, point)) forgetPreImages(place.db, place.sessionId, turnId);
  return { files: [], skipped: [] };
}

/** The ids of the chosen turn and every later one, oldest first. */
export function turnsFrom(messages: readonly StoredMessage[], point: RewindPoint): string[] {
  return [...new Set(messages.filter((m) => m.seq >= point.seq && m.turnId).map((m) => m.turnId as string))];
}

function dedupe(skipped: Skipped[]): Skipped[] {
  const seen = new Set<string>();
  return skipped.filter((s) => {
    const key = `${s.path}\n${s.why}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
