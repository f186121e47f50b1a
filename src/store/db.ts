import { Database } from "bun:sqlite";
import { chmodSync, closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { errorCode } from "../errors.ts";
import { BUSY_TIMEOUT_MS, keepWal } from "./checkpoint.ts";
import { MIGRATIONS, SCHEMA_VERSION } from "./migrations.ts";

export type Db = Database;

/**
 * The store could not be used: a database this version cannot read (written by a newer lembas),
 * one that cannot be opened, or a disk that will not take a write. Its message is the sentence.
 */
export class StoreError extends Error {
  override name = "StoreError";
  constructor(
    message: string,
    /** As UserError's: 2 for a file this lembas cannot read, 1 for a failure at run time. */
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Makes the database file's folder and the file itself, readable by the person alone. */
function prepareFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, "a", 0o600));
  chmodSync(file, 0o600);
}

/**
 * Opens (creating when absent) the one SQLite file every lembas process shares: mode 0600, WAL,
 * a busy timeout so concurrent writers wait instead of failing, foreign keys on, migrations applied.
 * Fails with a StoreError saying what is wrong with the file or its directory.
 */
export function openDb(file: string): Db {
  try {
    // ":memory:" is SQLite's name for a store in memory, not a file to make where the process runs.
    if (file !== ":memory:") prepareFile(file);
  } catch (error) {
    throw openFailure(error, file) ?? error;
  }
  let db: Db;
  try {
    db = new Database(file, { create: true, strict: true });
  } catch (error) {
    throw openFailure(error, file) ?? error;
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Changing the journal mode does not wait on the busy timeout: another process making the
    // same fresh file (a service and a terminal started at once) is waited for here.
    whileBusy(() => db.exec("PRAGMA journal_mode = WAL"), 10_000);
    db.exec("PRAGMA synchronous = NORMAL");
    // The WAL is checkpointed when the process is idle, not in a commit on a turn's path (checkpoint.ts).
    keepWal(db);
    db.exec("PRAGMA foreign_keys = ON");
    migrate(db, file);
  } catch (error) {
    db.close();
    throw openFailure(error, file) ?? error;
  }
  return db;
}

/** Runs `step` again while SQLite says the file is busy, for at most `ms`. */
function whileBusy(step: () => void, ms: number): void {
  const until = Date.now() + ms;
  for (;;) {
    try {
      step();
      return;
    } catch (error) {
      if (!(errorCode(error) ?? "").startsWith("SQLITE_BUSY") || Date.now() >= until) throw error;
      Bun.sleepSync(10 + Math.random() * 20);
    }
  }
}

/**
 * What a failure of SQLite on the store means, as a StoreError whose sentence names `file` and
 * what to do; null for any other error (a file-system error met elsewhere is not the store's).
 */
export function storeFailure(error: unknown, file: string): StoreError | null {
  if (error instanceof StoreError) return error;
  const code = errorCode(error) ?? "";
  if (!code.startsWith("SQLITE_")) return null;
  const dir = dirname(file);
  if (code === "SQLITE_FULL") return full(file);
  if (code.startsWith("SQLITE_NOTADB") || code.startsWith("SQLITE_CORRUPT")) {
    return new StoreError(`the state database ${file} is not a database (corrupt?): move it aside and start again`);
  }
  if (code.startsWith("SQLITE_READONLY")) return readOnly(dir);
  if (code.startsWith("SQLITE_CANTOPEN")) return new StoreError(`the state database ${file} could not be opened: check that ${dir} is a directory you can write to`);
  if (code.startsWith("SQLITE_IOERR")) return new StoreError(`the state database ${file} could not be read or written (a disk I/O error): check the disk`);
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return new StoreError(`the state database ${file} stayed locked by another lembas process: try again`);
  }
  return null;
}

/** A failure making the store's directory or file, which is the store's whatever its kind. */
function openFailure(error: unknown, file: string): StoreError | null {
  const code = errorCode(error) ?? "";
  const dir = dirname(file);
  if (code === "ENOSPC" || code === "EDQUOT") return full(file);
  if (code === "EROFS") return readOnly(dir);
  if (code === "EACCES" || code === "EPERM") {
    return new StoreError(`the state directory ${dir} is not writable by this user: make it so, or set LEMBAS_STATE_DIR to one that is`);
  }
  if (code === "ENOTDIR" || code === "EEXIST") return new StoreError(`the state directory ${dir} is not a directory: move what is there aside`);
  return storeFailure(error, file);
}

const full = (file: string) => new StoreError(`the state database ${file} is full: free some disk space`);
const readOnly = (dir: string) => new StoreError(`the state directory ${dir} is read-only: make it writable, or set LEMBAS_STATE_DIR to one that is`);

function migrate(db: Db, file: string): void {
  // A store this lembas made already (nearly every start) is read, not locked for writing: the lock
  // and its commit were half of the store's opening (bench/START.md). A store behind or ahead, or a
  // fresh one, takes the path below, which reads the version again under the lock.
  if (upToDate(db)) return;
  db.exec("CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const apply = db.transaction(() => {
    const applied = appliedVersion(db);
    if (applied > SCHEMA_VERSION) {
      throw new StoreError(
        `${file} was written by a newer lembas (schema ${applied}, this one knows up to ${SCHEMA_VERSION}): update lembas, or move the file aside to start afresh`,
        2,
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

/** Whether the store's migrations are this lembas's, read without a lock; false for a store without them. */
function upToDate(db: Db): boolean {
  const table = db.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'migrations'").get();
  return (table?.n ?? 0) > 0 && appliedVersion(db) === SCHEMA_VERSION;
}

export function appliedVersion(db: Db): number {
  const row = db.query<{ v: number | null }, []>("SELECT max(version) AS v FROM migrations").get();
  return row?.v ?? 0;
}
