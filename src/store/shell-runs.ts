import type { Db } from "./db.ts";

/** A command the person ran with `!`, as kept with its session. */
export type KeptShellRun = { command: string; cwd: string; output: string; exitCode: number | null; signal: string | null; stopped: boolean; leftBehind: boolean };

/** Keeps a `!` run with its session, after the user messages the session has now. */
export function keepShellRun(db: Db, sessionId: string, run: KeptShellRun, now = Date.now()): void {
  const { command, cwd, output, exitCode, signal, stopped, leftBehind } = run;
  db.query(
    `INSERT INTO shell_runs (session_id, after_users, body, created_at)
     VALUES (?, (SELECT count(*) FROM messages WHERE session_id = ? AND role = 'user'), ?, ?)`,
  ).run(sessionId, sessionId, JSON.stringify({ command, cwd, output, exitCode, signal, stopped, leftBehind }), now);
}

/**
 * A session's `!` runs in the order run, each with how many user messages came before it; a row
 * that no longer reads as one is passed over. Read by hand, not with zod: a resumed session's
 * history is drawn before zod is loaded (resumed-history.ts).
 */
export function sessionShellRuns(db: Db, sessionId: string): { afterUsers: number; run: KeptShellRun }[] {
  return db
    .query<{ after_users: number; body: string }, [string]>("SELECT after_users, body FROM shell_runs WHERE session_id = ? ORDER BY id")
    .all(sessionId)
    .flatMap((row) => {
      const run = readRun(row.body);
      return run ? [{ afterUsers: row.after_users, run }] : [];
    });
}

function readRun(body: string): KeptShellRun | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  const strings = typeof v.command === "string" && typeof v.cwd === "string" && typeof v.output === "string";
  const ending = (v.exitCode === null || typeof v.exitCode === "number") && (v.signal === null || typeof v.signal === "string");
  if (!strings || !ending || typeof v.stopped !== "boolean" || typeof v.leftBehind !== "boolean") return null;
  return { command: v.command as string, cwd: v.cwd as string, output: v.output as string, exitCode: v.exitCode as number | null, signal: v.signal as string | null, stopped: v.stopped, leftBehind: v.leftBehind };
}
