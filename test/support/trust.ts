import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { trustDir } from "../../src/store/trust.ts";
import type { Sandbox } from "./run.ts";

/**
 * Trusts `dir` in the sandbox's store, as `lembas trust` does, without spawning it (a spawn costs
 * a third of a second of CPU): for tests whose subject is not that command.
 */
export function trustIn(box: Sandbox, dir: string): void {
  const db = openDb(join(box.stateDir, "lembas.db"));
  try {
    trustDir(db, dir);
  } finally {
    db.close();
  }
}
