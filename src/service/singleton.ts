/**
 * One `lembas serve` a state directory: the first to start holds an exclusive SQLite lock on
 * `<state>/service.lock` for as long as it runs, and the system lets go of it however it ends
 * (kill -9 too). A second one finds it held and ends with one line, exit 2, before it links to
 * any instance or touches the control socket. (The design's singleton `procs` row in the store
 * will say which process holds it; this lock is what makes two at once impossible meanwhile.)
 */
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { alreadyRunning } from "./control.ts";
import { readServiceStatus } from "../app/service-status.ts";

/** Releases the lock (the service stops). */
export type ReleaseService = () => void;

/** Takes the state directory's service lock, or throws the UserError naming the service that holds it. */
export async function holdService(stateDir: string, socketPath: string): Promise<ReleaseService> {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(stateDir, "service.lock"), { create: true });
  try {
    db.exec("PRAGMA busy_timeout = 0");
    db.exec("BEGIN EXCLUSIVE");
  } catch (error) {
    db.close();
    if (!/locked|busy/i.test(String(error))) throw error;
    throw alreadyRunning(await holderPid(socketPath));
  }
  return () => {
    try {
      db.exec("ROLLBACK");
    } finally {
      db.close();
    }
  };
}

/** The running service's pid, given up to two seconds to open its socket (it may be starting too). */
async function holderPid(socketPath: string): Promise<number | null> {
  for (let tries = 0; tries < 20; tries++) {
    const reading = await readServiceStatus(socketPath, 500);
    if (reading.running) return reading.status.pid;
    await Bun.sleep(100);
  }
  return null;
}
