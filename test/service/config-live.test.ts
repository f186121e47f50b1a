/**
 * config.yaml edited while `lembas serve` runs takes effect without a restart: a deny rule holds
 * from the open session's next turn, a lowered remote.max_mode lowers that session (said as a mode
 * change) and caps a new one; a file that no longer validates keeps the last good one in force and
 * is said once in the log, and fixed, what it says applies.
 */
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Device, lembasEvents, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import type { Link } from "../support/instance.ts";

let d: Device | null = null;
afterEach(async () => {
  await d?.close();
  d = null;
});

type Made = { sessionId: string; modes?: { currentModeId?: string } };

async function writes(link: Link, dev: Device, sessionId: string, file: string): Promise<boolean> {
  dev.model.push(step({ toolCalls: [{ name: "write", arguments: { path: file, content: "x\n" } }] }), step({ text: "ok" }));
  await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `write ${file}` }] }, 30_000);
  return existsSync(join(dev.project, file));
}

test("a deny rule and a lower remote.max_mode written under a running service apply from the next turn and the next session", async () => {
  d = await startDevice();
  const link = await d.serve();
  const cfgFile = join(d.box.configDir, "config.yaml");
  const first = readFileSync(cfgFile, "utf8");
  const s1 = (await link.request("session/new", { cwd: d.project, mcpServers: [], _meta: { mode: "edit" } })) as Made;
  expect(s1.modes?.currentModeId).toBe("edit");

  const restricted = `${first.replace("max_mode: edit", "max_mode: plan")}permissions:\n  deny: [Write(two.txt), Edit(two.txt)]\n`;
  writeFileSync(cfgFile, restricted);
  const from = link.notifications.length;
  expect(await writes(link, d, s1.sessionId, "two.txt")).toBe(false);
  // The open session, in edit above the new cap, is lowered to plan and the web is told.
  expect(lembasEvents(link, s1.sessionId, from).filter((e) => e.type === "mode")).toEqual([expect.objectContaining({ mode: "plan" })]);
  const s2 = (await link.request("session/new", { cwd: d.project, mcpServers: [], _meta: { mode: "edit" } })) as Made;
  expect(s2.modes?.currentModeId).toBe("plan");
  expect(await writes(link, d, s2.sessionId, "three.txt")).toBe(false);

  // Broken: the last good file stays in force (plan, the deny), said once in the log with the validator's sentence.
  writeFileSync(cfgFile, restricted.replace("max_mode: plan", "max_mode: sideways"));
  const s3 = (await link.request("session/new", { cwd: d.project, mcpServers: [], _meta: { mode: "edit" } })) as Made;
  expect(s3.modes?.currentModeId).toBe("plan");
  expect(await writes(link, d, s3.sessionId, "four.txt")).toBe(false);
  const log = await d.waitForLog("stays in force");
  expect(log).toContain("remote.max_mode");
  expect(log).toContain("must be one of");
  expect(log.split("stays in force").length - 1).toBe(1);

  // Fixed: what it says now applies (edit again, no deny).
  writeFileSync(cfgFile, first);
  const s4 = (await link.request("session/new", { cwd: d.project, mcpServers: [], _meta: { mode: "edit" } })) as Made;
  expect(s4.modes?.currentModeId).toBe("edit");
  expect(await writes(link, d, s4.sessionId, "two.txt")).toBe(true);
  expect(await d.waitForLog("reads again")).toContain("config.yaml reads again");
}, 120_000);
