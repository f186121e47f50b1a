import type { Db } from "./db.ts";

/** Whether the person approved the servers of the .mcp.json at `path` (absolute, real) as it reads with this hash. */
export function isMcpApproved(db: Db, path: string, hash: string): boolean {
  return db.query<{ n: number }, [string, string]>("SELECT count(*) AS n FROM mcp_approvals WHERE path = ? AND hash = ?").get(path, hash)?.n === 1;
}

/** Keeps the person's approval of that file's servers as the hash names them. */
export function approveMcpFile(db: Db, path: string, hash: string): void {
  db.query("INSERT INTO mcp_approvals (path, hash, approved_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING").run(path, hash, Date.now());
}
