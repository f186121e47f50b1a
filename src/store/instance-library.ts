import type { Db } from "./db.ts";

/**
 * Whether a login's token reaches the account's library, and how that was found: the token's
 * scopes as /api/v1/instance listed them, or (when it lists none) the library tools its /mcp lists.
 */
export type InstanceLibrary = { library: boolean; how: "scope" | "tools"; checkedAt: number };

export function getInstanceLibrary(db: Db, url: string): InstanceLibrary | null {
  const row = db.query<{ library: number; how: string; checked_at: number }, [string]>("SELECT library, how, checked_at FROM instance_library WHERE url = ?").get(url);
  if (!row) return null;
  return { library: row.library === 1, how: row.how === "tools" ? "tools" : "scope", checkedAt: row.checked_at };
}

export function setInstanceLibrary(db: Db, url: string, value: Omit<InstanceLibrary, "checkedAt">, now = Date.now()): void {
  db.query(
    `INSERT INTO instance_library (url, library, how, checked_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (url) DO UPDATE SET library = excluded.library, how = excluded.how, checked_at = excluded.checked_at`,
  ).run(url, value.library ? 1 : 0, value.how, now);
}
