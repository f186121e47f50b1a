/**
 * Processes opening the same fresh state database at once (a service and a terminal started
 * together, two services racing for the lock) all open it: none fails with "stayed locked".
 */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const OPENER = `
import { openDb } from ${JSON.stringify(join(import.meta.dir, "../../src/store/db.ts"))};
const at = Number(process.argv[2]);
while (Date.now() < at) {}
openDb(process.argv[1]).close();
`;

test("eight processes opening one fresh database at the same moment all open it", async () => {
  for (let round = 0; round < 4; round++) {
    const dir = mkdtempSync(join(tmpdir(), "lembas-open-race-"));
    try {
      const file = join(dir, "state", "lembas.db");
      const at = Date.now() + 400;
      const procs = Array.from({ length: 8 }, () => Bun.spawn([process.execPath, "-e", OPENER, file, String(at)], { stderr: "pipe", stdout: "ignore" }));
      const results = await Promise.all(procs.map(async (p) => ({ code: await p.exited, stderr: (await new Response(p.stderr).text()).trim().split("\n")[0] ?? "" })));
      expect(results.filter((r) => r.code !== 0)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}, 30_000);
