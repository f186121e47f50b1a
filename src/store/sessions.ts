import type { Db } from "./db.ts";

export type SessionRow = {
  id: string;
  root: string;
  cwd: string;
  title: string;
  mode: string;
  model: string | null;
  effort: string;
  origin: string;
  summary: string | null;
  /** The last message seq the summary covers: the model sees the summary, then what follows it. */
  summarySeq: number | null;
  createdAt: number;
  updatedAt: number;
};

type RawSession = {
  id: string;
  root: string;
  cwd: string;
  title: string;
  mode: string;
  model: string | null;
  effort: string;
  origin: string;
  summary: string | null;
  summary_seq: number | null;
  created_at: number;
  updated_at: number;
};

const COLUMNS = "id, root, cwd, title, mode, model, effort, origin, summary, summary_seq, created_at, updated_at";

function toRow(raw: RawSession): SessionRow {
  return {
    id: raw.id,
    root: raw.root,
    cwd: raw.cwd,
    title: raw.title,
    mode: raw.mode,
    model: raw.model,
    effort: raw.effort,
    origin: raw.origin,
    summary: raw.summary,
    summarySeq: raw.summary_seq,
    createdAt: raw.created_at,
    updatedAt: raw.updated_at,
  };
}

/** A new session id: `ses_` and 24 characters of time-ordered randomness. */
export function newSessionId(): string {
  const time = Date.now().toString(36).padStart(9, "0");
  const random = crypto.getRandomValues(new Uint8Array(10));
  return `ses_${time}${Buffer.from(random).toString("base64url").slice(0, 13).toLowerCase()}`;
}

export function insertSession(
  db: Db,
  s: Pick<SessionRow, "id" | "root" | "cwd" | "mode" | "model" | "effort" | "origin"> & { title?: string },
): SessionRow {
  const now = Date.now();
  db.query(
    `INSERT INTO sessions (id, root, cwd, title, mode, model, effort, origin, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(s.id, s.root, s.cwd, s.title ?? "", s.mode, s.model, s.effort, s.origin, now, now);
  const row = getSession(db, s.id);
  if (!row) throw new Error(`session ${s.id} was not stored`);
  return row;
}

export function getSession(db: Db, id: string): SessionRow | null {
  const raw = db.query<RawSession, [string]>(`SELECT ${COLUMNS} FROM sessions WHERE id = ?`).get(id);
  return raw ? toRow(raw) : null;
}

export function listSessions(db: Db, opts: { root?: string; limit?: number } = {}): SessionRow[] {
  const limit = opts.limit ?? 1000;
  const rows = opts.root
    ? db
        .query<RawSession, [string, number]>(
          `SELECT ${COLUMNS} FROM sessions WHERE root = ? ORDER BY updated_at DESC LIMIT ?`,
        )
        .all(opts.root, limit)
    : db.query<RawSession, [number]>(`SELECT ${COLUMNS} FROM sessions ORDER BY updated_at DESC LIMIT ?`).all(limit);
  return rows.map(toRow);
}

/** Every session not updated since `cutoff` (ms), the longest untouched first: what a prune would delete. */
export function sessionsUntouchedSince(db: Db, cutoff: number): SessionRow[] {
  return db.query<RawSession, [number]>(`SELECT ${COLUMNS} FROM sessions WHERE updated_at < ? ORDER BY updated_at ASC`).all(cutoff).map(toRow);
}

export type SessionPatch = Partial<Pick<SessionRow, "title" | "mode" | "model" | "effort" | "cwd" | "summary" | "summarySeq">>;

export function updateSession(db: Db, id: string, patch: SessionPatch): void {
  const columns: Record<keyof SessionPatch, string> = {
    title: "title",
    mode: "mode",
    model: "model",
    effort: "effort",
    cwd: "cwd",
    summary: "summary",
    summarySeq: "summary_seq",
  };
  const keys = (Object.keys(patch) as (keyof SessionPatch)[]).filter((k) => patch[k] !== undefined);
  const sets = keys.map((k) => `${columns[k]} = ?`);
  const values = keys.map((k) => patch[k] ?? null);
  db.query(`UPDATE sessions SET ${[...sets, "updated_at = ?"].join(", ")} WHERE id = ?`).run(...values, Date.now(), id);
}

/** Removes the session with its messages, turns, hold and marks. Returns false when there was none. */
export function deleteSession(db: Db, id: string): boolean {
  const run = db.transaction(() => {
    db.query("DELETE FROM turns WHERE session_id = ?").run(id);
    db.query("DELETE FROM holds WHERE session_id = ?").run(id);
    db.query("DELETE FROM client_marks WHERE session_id = ?").run(id);
    return db.query("DELETE FROM sessions WHERE id = ?").run(id).changes > 0;
  });
  return run.immediate();
}
