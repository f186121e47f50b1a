import type { Db } from "./db.ts";

/** What a probe found of an instance's /mcp: whether it serves it, and when that was found. */
export type InstanceMcp = { serves: boolean; probedAt: number };

export function getInstanceMcp(db: Db, url: string): InstanceMcp | null {
  const row = db.query<{ serves: number; probed_at: number }, [string]>("SELECT serves, probed_at FROM instance_mcp WHERE url = ?").get(url);
  return row ? { serves: row.serves === 1, probedAt: row.probed_at } : null;
}

export function setInstanceMcp(db: Db, url: string, serves: boolean, now = Date.now()): void {
  db.query(
    `INSERT INTO instance_mcp (url, serves, probed_at) VALUES (?, ?, ?)
     ON CONFLICT (url) DO UPDATE SET serves = excluded.serves, probed_at = excluded.probed_at`,
  ).run(url, serves ? 1 : 0, now);
}
