import type { Db } from "./db.ts";
import { getSession, insertSession, type SessionRow } from "./sessions.ts";

/**
 * Makes a new session from another's conversation up to and with message `throughSeq` (null: all
 * of it), in one transaction: its settings, its messages with their seqs and turn ids, and its
 * summary when the summary covers no message left out, and what undo kept of the turns it carries
 * (so that /undo and /rewind in the copy put their files back as in the original; each file still
 * only when it is as the turn left it). The original is only read. `moved`: a
 * directory the messages name that the copy has its own of (its attachments), named anew in them.
 */
export function copySession(
  db: Db,
  from: SessionRow,
  to: { id: string; title: string; origin: string },
  throughSeq: number | null,
  moved: { from: string; to: string } | null = null,
): SessionRow {
  const last = throughSeq ?? Number.MAX_SAFE_INTEGER;
  return db
    .transaction(() => {
      insertSession(db, { id: to.id, root: from.root, cwd: from.cwd, mode: from.mode, model: from.model, effort: from.effort, origin: to.origin, title: to.title });
      db.query(
        `INSERT INTO messages (session_id, seq, role, body, turn_id, created_at)
         SELECT ?, seq, role, body, turn_id, created_at FROM messages WHERE session_id = ? AND seq <= ? ORDER BY seq`,
      ).run(to.id, from.id, last);
      copyUndo(db, from.id, to.id);
      if (moved) db.query("UPDATE messages SET body = replace(body, ?, ?) WHERE session_id = ?").run(JSON.stringify(moved.from).slice(1, -1), JSON.stringify(moved.to).slice(1, -1), to.id);
      const summary = from.summarySeq !== null && from.summarySeq <= last ? { summary: from.summary, seq: from.summarySeq } : null;
      if (summary) db.query("UPDATE sessions SET summary = ?, summary_seq = ? WHERE id = ?").run(summary.summary, summary.seq, to.id);
      const row = getSession(db, to.id);
      if (!row) throw new Error(`session ${to.id} was not stored`);
      return row;
    })
    .immediate();
}

/** The undo rows (kept files, and turns whose undo data was dropped) of every turn the copy's messages carry. */
function copyUndo(db: Db, from: string, to: string): void {
  const turns = "SELECT DISTINCT turn_id FROM messages WHERE session_id = ?3 AND turn_id IS NOT NULL";
  db.query(
    `INSERT INTO undo_files (session_id, turn_id, path, existed, content, mode, created_at, missing_why, refused_why,
                             after_existed, after_size, after_mtime, after_hash)
     SELECT ?1, turn_id, path, existed, content, mode, created_at, missing_why, refused_why, after_existed, after_size, after_mtime, after_hash
     FROM undo_files WHERE session_id = ?2 AND turn_id IN (${turns})`,
  ).run(to, from, to);
  db.query(`INSERT INTO undo_turns (session_id, turn_id, why, created_at) SELECT ?1, turn_id, why, created_at FROM undo_turns WHERE session_id = ?2 AND turn_id IN (${turns})`).run(to, from, to);
}
