import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { pendingDeletes } from "../../src/store/deletes.ts";
import { type Device, LEMBAS_INIT, startDevice } from "../support/device.ts";
import { runLembas } from "../support/run.ts";

let d: Device;
afterEach(() => d.close());

const kept = (d: Device): string[] => {
  const db = openDb(join(d.box.stateDir, "lembas.db"));
  try {
    return pendingDeletes(db, "inst");
  } finally {
    db.close();
  }
};

test("a delete written into a link whose peer vanished right after is sent again at the next link", async () => {
  d = await startDevice();
  // The link sends kept deletes every 3 s; every 0.3 s here, so that the test does not sit it out.
  const link = await d.serve({ env: { LEMBAS_TEST_KEPT_DELETES_EVERY_MS: "300" } });
  const run = await runLembas(d.box, ["run", "--format", "json", "hello"], { cwd: d.project });
  const sessionId = (JSON.parse(run.stdout.split("\n")[0] ?? "{}") as { id: string }).id;
  expect(sessionId).toStartWith("ses_");
  // The instance stops reading: what the device writes now never reaches it.
  link.pause();
  expect((await runLembas(d.box, ["sessions", "delete", sessionId])).code).toBe(0);
  // Let the link write this one into the dead socket (a few times over).
  await Bun.sleep(1000);
  expect(kept(d)).toEqual([sessionId]);
  await link.close(1011, "gone");
  expect(link.notifications.some((n) => n.method === "_lembas/session/deleted")).toBe(false);

  const next = await d.instance.waitForLink(10_000);
  await next.hello;
  await next.request("initialize", LEMBAS_INIT);
  const note = await next.waitForNotification("_lembas/session/deleted", 10_000);
  expect(note.params).toEqual({ sessionId });
  // The instance answered the ping behind it: now it is forgotten.
  const end = Date.now() + 5000;
  while (kept(d).length > 0 && Date.now() < end) await Bun.sleep(50);
  expect(kept(d)).toEqual([]);
}, 40_000);
