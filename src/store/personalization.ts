import { z } from "zod";
import type { Db } from "./db.ts";

/** A login's personalization as its instance says it (account/personalization.ts asks), and as it is kept here. */
export const Personalization = z.object({
  enabled: z.boolean(),
  available: z.boolean(),
  personality: z.string().nullable(),
  personality_custom: z.string().nullable(),
  instructions: z.string().nullable(),
});
export type Personalization = z.infer<typeof Personalization>;

/** What an instance last said of its personalization, and when. */
export type CachedPersonalization = { value: Personalization; readAt: number };

/** The copy kept for the instance at `url`, or null (never read, or a row that no longer parses). */
export function getPersonalization(db: Db, url: string): CachedPersonalization | null {
  const row = db.query<{ body: string; read_at: number }, [string]>("SELECT body, read_at FROM personalization WHERE url = ?").get(url);
  if (!row) return null;
  let body: unknown;
  try {
    body = JSON.parse(row.body);
  } catch {
    return null;
  }
  const parsed = Personalization.safeParse(body);
  return parsed.success ? { value: parsed.data, readAt: row.read_at } : null;
}

export function setPersonalization(db: Db, url: string, value: Personalization, now = Date.now()): void {
  db.query(
    `INSERT INTO personalization (url, body, read_at) VALUES (?, ?, ?)
     ON CONFLICT (url) DO UPDATE SET body = excluded.body, read_at = excluded.read_at`,
  ).run(url, JSON.stringify(value), now);
}

/** An instance that answered 404: it has no personalization, so no copy is kept. */
export function forgetPersonalization(db: Db, url: string): void {
  db.query("DELETE FROM personalization WHERE url = ?").run(url);
}
