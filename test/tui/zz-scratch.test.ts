import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { projectSandbox, runLembas, type Sandbox } from "../support/run.ts";
import { openScreen, type Screen } from "../support/tmux.ts";

let box: Sandbox & { project: string };
let model: ScriptedModel;
const screens: Screen[] = [];
beforeEach(async () => { model = await startModel(); box = projectSandbox(model.url); });
afterEach(async () => { for (const s of screens.splice(0)) await s.close(); await model.close(); box.cleanup(); });
async function open(args: string[] = [], opts: { columns?: number; rows?: number; cwd?: string } = {}) {
  const s = await openScreen(box, { args, cwd: box.project, ...opts }); screens.push(s); return s;
}
const show = (label: string, s: Screen) => console.log(`\n===== ${label} (exit ${s.exitCode()})\n${s.text()}`);
const sessionIdOf = (text: string) => /lembas -r (ses_\w+)/.exec(text)?.[1] ?? "";

test("sigterm during approval then resume", async () => {
  model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo hi > f.txt" } }] }), step({ text: "after" }));
  const s = await open(["--mode", "manual"]);
  await s.waitFor("test/test-model");
  await s.type("run it", "Enter");
  await s.waitFor("Yes, once");
  process.kill(s.pid(), "SIGTERM");
  await s.exited(10000);
  const id = sessionIdOf(s.text());
  const r = await open(["-r", id]);
  await Bun.sleep(1500);
  show("resumed", r);
  model.push(step({ text: "next answer" }));
  await r.type("continue", "Enter");
  await Bun.sleep(1500);
  show("resumed+prompt", r);
  console.log(JSON.stringify(model.requests.at(-1)?.body.messages).slice(0, 1500));
});

test("-r from another directory", async () => {
  model.push(step({ text: "first" }));
  const other = join(box.dir, "other"); mkdirSync(other);
  const s = await open([], { cwd: other });
  await s.waitFor("test/test-model");
  await s.type("hello there", "Enter");
  await s.waitFor("first");
  await s.type("C-d");
  await s.exited();
  const id = sessionIdOf(s.text());
  const r = await open(["-r", id]);
  await Bun.sleep(1500);
  show("-r other dir", r);
});

test("stdin not a tty, stdout a tty", async () => {
  const s = await openScreen(box, { cwd: box.project, args: [] , env: {} });
  screens.push(s);
  await Bun.sleep(200);
  await s.close();
});
