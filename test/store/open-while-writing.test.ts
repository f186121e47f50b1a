/**
 * A store this lembas made already opens with a read of its migrations, not under the write lock:
 * a start does not queue behind another process's write (a service's turn, a terminal's), nor pay
 * for a lock it does not need (bench/START.md).
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { type Sandbox, sandbox } from "../support/run.ts";

let box: Sandbox | undefined;
afterEach(() => box?.cleanup());

test("an up-to-date store opens while another connection holds its write lock, and reads", () => {
  box = sandbox();
  const file = join(box.stateDir, "lembas.db");
  const writer = openDb(file);
  try {
    writer.exec("BEGIN IMMEDIATE");
    writer.exec("INSERT INTO migrations (version, applied_at) VALUES (-1, 0)");
    // Before, the opening took the write lock and waited out the busy timeout, then failed.
    const reader = openDb(file);
    try {
      expect(reader.query<{ v: number }, []>("SELECT max(version) AS v FROM migrations").get()?.v).toBe(SCHEMA_VERSION);
    } finally {
      reader.close();
    }
    writer.exec("ROLLBACK");
  } finally {
    writer.close();
  }
});
