import type { Database } from "bun:sqlite";
import { walFrames } from "./wal-frames.ts";

/**
 * Where the store's WAL is checkpointed: not in a commit on a turn's way to its first chunk (SQLite's
 * automatic checkpoint, every 1,000 pages by default, ran inside whichever commit crossed it and made
 * it wait 11–31 ms on fsyncs here: bench/START.md), but when the process is idle.
 *
 * - Every process opening the store raises the automatic checkpoint to BOUND_PAGES (openDb): one that
 *   kept SQLite's default would take the checkpoint back onto some turn's commit. The bound is the
 *   last resort of a process whose turns never end (its WAL still stops growing there).
 * - A process that runs turns checkpoints IDLE_MS after its last turn ended, when none runs.
 * - A turn whose answer is stored checkpoints a WAL past DUE_PAGES (after its last chunk, before
 *   its answer is sent): a service whose turns overlap, or follow each other closely, never idles.
 * - A process that exits (`lembas run`, a short command, the terminal) needs nothing of its own:
 *   as Bun closes the store at exit, SQLite takes the file's lock (which an idle connection of
 *   another process does not hold), checkpoints the whole WAL and truncates it, after the answer.
 *
 * Every checkpoint is PASSIVE: it neither waits for nor blocks another process. One that cannot
 * finish because a reader still uses the WAL's end leaves those frames for the next try (again
 * after IDLE_MS, a few times, then at the next turn's end); meanwhile the WAL grows on from where
 * it is instead of starting over (lembas's reads are single statements: a reader is there a moment).
 */
export const BOUND_PAGES = 4000;
export const DUE_PAGES = 1000;
const IDLE_MS = 500;
const RETRIES = 5;
/** The store's busy timeout (db.ts), set again after the restart's write that does not wait. */
export const BUSY_TIMEOUT_MS = 10_000;

type Keeper = { running: number; timer: ReturnType<typeof setTimeout> | null; retries: number };

/** Each connection's turns running and idle timer (a WeakMap keyed by the connection). */
const keepers = new WeakMap<Database, Keeper>();

/** Sets the automatic checkpoint's bound on a connection just opened. */
export function keepWal(db: Database): void {
  db.exec(`PRAGMA wal_autocheckpoint = ${BOUND_PAGES}`);
}

/** A turn began on this connection's process: no idle checkpoint until every turn has ended. */
export function turnBegan(db: Database): void {
  const keeper = keeperOf(db);
  keeper.running++;
  if (keeper.timer) clearTimeout(keeper.timer);
  keeper.timer = null;
}

/**
 * A turn's answer is stored: a checkpoint now if the WAL is past due (a process that never idles).
 * After the turn's last chunk and before its answer is sent: a client that sends its next prompt
 * at once (a script, a bench) would otherwise have that prompt wait on it.
 */
export function turnAnswered(db: Database): void {
  if (pendingFrames(db.filename) >= DUE_PAGES) checkpointAndRestart(db);
}

/** A turn ended: a checkpoint once the process has been idle a moment. */
export function turnEnded(db: Database): void {
  const keeper = keeperOf(db);
  keeper.running = Math.max(0, keeper.running - 1);
  if (keeper.running > 0) return;
  keeper.retries = 0;
  whenIdle(db, keeper);
}

function keeperOf(db: Database): Keeper {
  let keeper = keepers.get(db);
  if (!keeper) {
    keeper = { running: 0, timer: null, retries: 0 };
    keepers.set(db, keeper);
  }
  return keeper;
}

function whenIdle(db: Database, keeper: Keeper): void {
  if (keeper.timer) clearTimeout(keeper.timer);
  keeper.timer = setTimeout(() => {
    keeper.timer = null;
    if (keeper.running > 0) return;
    // A reader kept the WAL's end: try again while still idle, a few times (the next turn's end tries anew).
    if (!checkpointAndRestart(db) && keeper.retries++ < RETRIES) whenIdle(db, keeper);
  }, IDLE_MS);
  // Waiting to checkpoint never keeps the process alive: its exit checkpoints instead.
  keeper.timer.unref();
}

/** The frames of the WAL not in the database yet (0 without a WAL). */
function pendingFrames(file: string): number {
  const frames = walFrames(file);
  return frames ? frames.mxFrame - frames.backfilled : 0;
}

/** A checkpoint, and the WAL started over when it took in the whole of it: whether it did. */
function checkpointAndRestart(db: Database): boolean {
  const finished = checkpoint(db);
  if (finished) restartWal(db);
  return finished;
}

/** A PASSIVE checkpoint: whether every frame of the WAL is in the database now (true too when it could not run). */
function checkpoint(db: Database): boolean {
  try {
    const row = db.query<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(PASSIVE)").get();
    return !row || row.busy !== 0 ? false : row.checkpointed >= row.log;
  } catch {
    // A connection closed meanwhile, or a store that fails: the commits themselves say so.
    return true;
  }
}

/**
 * Starts the WAL over now, while idle: the first commit after a checkpoint that took in the whole
 * WAL writes its header afresh and fsyncs it (0.5–3 ms here), and that commit would otherwise be
 * the next turn's. Setting user_version to what it is changes nothing but writes that one frame.
 * Another process writing just then keeps the lock: nothing is waited for, the next turn pays.
 */
function restartWal(db: Database): void {
  try {
    db.exec("PRAGMA busy_timeout = 0");
    const row = db.query<{ user_version: number }, []>("PRAGMA user_version").get();
    db.exec(`PRAGMA user_version = ${row?.user_version ?? 0}`);
  } catch {
    // busy, or closed: see above
  } finally {
    try {
      db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    } catch {
      // a connection closed meanwhile
    }
  }
}
