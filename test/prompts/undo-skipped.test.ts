import { afterEach, beforeEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Device, linkedSession } from "../support/device.ts";
import { step } from "../support/engine.ts";
import type { Link } from "../support/instance.ts";
import { waitUntil } from "../support/procs.ts";

let d: Device;
let link: Link;
let sessionId: string;
beforeEach(async () => {
  ({ d, link, sessionId } = await linkedSession());
});
afterEach(() => d.close());

const say = (text: string) => link.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, 30_000);

test("/undo over ACP answers the files it left alone and why, beside those it put back", async () => {
  d.model.push(
    step({ toolCalls: [{ name: "write", arguments: { path: "one.txt", content: "by the turn\n" } }] }),
    step({ toolCalls: [{ name: "write", arguments: { path: "two.txt", content: "by the turn\n" } }] }),
    step({ text: "ok" }),
  );
  await say("write two files");
  writeFileSync(join(d.project, "one.txt"), "the person's\n");
  const answer = (await say("/undo")) as { _meta: { lembas: { undone: unknown } } };
  expect(answer._meta.lembas.undone).toEqual({
    prompt: "write two files",
    files: ["two.txt"],
    skipped: [{ path: "one.txt", why: expect.stringContaining("changed after the turn") }],
    trash: expect.stringContaining("undo-trash"),
  });
  expect(readFileSync(join(d.project, "one.txt"), "utf8")).toBe("the person's\n");
});

test("/undo over ACP names the background job the turn started: what it changed is not restored, and said so", async () => {
  link.onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "once" } }));
  writeFileSync(join(d.project, "notes.txt"), "the person's notes\n");
  const command = "printf 'rewritten by the job\\n' > notes.txt; sleep 30";
  d.model.push(
    step({ toolCalls: [{ name: "write", arguments: { path: "one.txt", content: "by the turn\n" } }] }),
    step({ toolCalls: [{ name: "bash", arguments: { command, run_in_background: true } }] }),
    step({ text: "ok" }),
  );
  await say("write a file and start a job");
  // The job runs on after the turn's answer: on a loaded machine its first line may come later.
  expect(await waitUntil(() => readFileSync(join(d.project, "notes.txt"), "utf8") === "rewritten by the job\n")).toBe(true);
  const answer = (await say("/undo")) as { _meta: { lembas: { undone: unknown } } };
  expect(answer._meta.lembas.undone).toEqual({
    prompt: "write a file and start a job",
    files: ["one.txt"],
    skipped: [{ path: "(job1)", why: `\`${command}\` ran in the background, outside the turn's undo: what it changed is not restored` }],
    trash: expect.stringContaining("undo-trash"),
  });
  expect(readFileSync(join(d.project, "notes.txt"), "utf8")).toBe("rewritten by the job\n");
});
