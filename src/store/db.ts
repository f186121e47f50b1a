import { Database } from "bun:sqlite";
import { chmodSync, closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { MIGRATIONS, SCHEMA_VERSION } from "./migrations.ts";

export type Db = Database;

/** A database this version cannot read (written by a newer lembas), or one that cannot be opened. */
export class StoreError extends Error {
  override name = "StoreError";
}

/**
 * Opens (creating when absent) the one SQLite file every lembas process shares: mode 0600, WAL,
 * a busy timeout so concurrent writers wait instead of failing, foreign keys on, migrations applied.
 */
export function openDb(file: string): Db {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, "a", 0o600));
  chmodSync(file, 0o600);
  const db = new Database(file, { create: true, strict: true });
  try {
    db.exec("PRAGMA busy_timeout = 10000");
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
    migrate(db, file);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

function migrate(db: Db, file: string): void {
  db.exec("CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const apply = db.transaction(() => {
    const applied = appliedVersion(db);
    if (applied > SCHEMA_VERSION) {
      throw new StoreError(
        `${file} was written by a newer lembas (schema ${applied}, this one knows up to ${SCHEMA_VERSION}): update lembas, or move the file aside to start afresh`,
      );
    }
    for (const step of MIGRATIONS) {
      if (step.version <= applied) continue;
      db.exec(step.sql);
      db.query("INSERT INTO migrations (version, applied_at) VALUES (?, ?)").run(step.version, Date.now());
    }
  });
  apply.immediate();
}

export function appliedVersion(db: Db): number {
  const row = db.query<{ v: number | null }, []>("SELECT max(version) AS v FROM migrations").get();
  return row?.v ?? 0;
}
