/**
 * config/live.ts: config.yaml as in force for a process that outlives an edit of it. Its keys read
 * the file again once it changed, looked at once an event-loop turn at most; a file that no longer
 * validates keeps the last good one, said once; fixed, it applies and says so.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ConfigNews, LiveConfig } from "../../src/config/live.ts";
import { type Sandbox, sandbox } from "../support/run.ts";

let box: Sandbox;
let file: string;
beforeEach(() => {
  box = sandbox();
  mkdirSync(box.configDir, { recursive: true });
  file = join(box.configDir, "config.yaml");
});
afterEach(() => box.cleanup());

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test("an edit is read at the next turn of the event loop, not again within the one that looked", async () => {
  writeFileSync(file, "mode: edit\n");
  const live = new LiveConfig(file);
  const { config } = live;
  expect(config.mode).toBe("edit");
  writeFileSync(file, "mode: plan\npermissions:\n  deny: [Write(x.txt)]\n");
  // Looked at already in this turn: one stat a turn, however many keys are read.
  expect(config.mode).toBe("edit");
  await nextTurn();
  expect(config.mode).toBe("plan");
  expect(config.permissions.deny).toEqual(["Write(x.txt)"]);
});

test("a file that no longer validates keeps the last good one and is said once; fixed, it applies and says so", async () => {
  writeFileSync(file, "remote:\n  max_mode: plan\n");
  const live = new LiveConfig(file);
  const news: ConfigNews[] = [];
  live.onNews((n) => news.push(n));
  writeFileSync(file, "remote:\n  max_mode: sideways\n");
  await nextTurn();
  expect(live.config.remote.max_mode).toBe("plan");
  await nextTurn();
  // Written again with the same fault: not said twice.
  writeFileSync(file, "remote:\n  max_mode: sideways\n\n");
  await nextTurn();
  expect(live.config.remote.max_mode).toBe("plan");
  expect(news).toHaveLength(1);
  expect(news[0]).toMatchObject({ kind: "refused" });
  expect(news[0]?.kind === "refused" && news[0].sentence).toContain("remote.max_mode: must be one of plan, manual, edit, auto — the config.yaml read before stays in force until it is fixed");
  writeFileSync(file, "remote:\n  max_mode: manual\n");
  await nextTurn();
  expect(live.config.remote.max_mode).toBe("manual");
  expect(news[1]).toEqual({ kind: "applied", fixed: true });
});

test("the first reading of a bad file throws, as a one-shot command's does", () => {
  writeFileSync(file, "mode: sideways\n");
  expect(() => new LiveConfig(file)).toThrow("mode");
});
