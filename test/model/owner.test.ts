import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Instance, startInstance } from "../support/instance.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { afterHeader, runLembas, type Sandbox, sandbox } from "../support/run.ts";

const TOKEN = "device-token-0123456789";
const FLASH = "deepseek/deepseek-flash";

type Account = { name: string; model: ScriptedModel; instance: Instance };

/** Two instances serving the same provider, logged in to in order: work first, then home. */
async function twoLogins(opts: { workListsAtFirst: boolean; workServes?: string }): Promise<{ box: Sandbox; project: string; work: Account; home: Account; close(): Promise<void> }> {
  const box = sandbox();
  const project = join(box.dir, "project");
  mkdirSync(project, { recursive: true });
  mkdirSync(box.configDir, { recursive: true });
  writeFileSync(join(box.configDir, "config.yaml"), "effort: off\n");
  const accounts: Account[] = [];
  for (const name of ["work", "home"]) {
    const served = name === "work" && opts.workServes ? opts.workServes : FLASH;
    const model = await startModel({ models: [{ id: served, kind: "chat" }] });
    const instance = await startInstance({ token: TOKEN, model, name });
    if (name === "work" && !opts.workListsAtFirst) instance.failModels(500);
    const login = await runLembas(box, ["login", instance.url, "--token-stdin", "--name", name], { stdin: TOKEN });
    if (login.code !== 0) throw new Error(`login ${name} failed: ${login.stderr}`);
    accounts.push({ name, model, instance });
  }
  const [work, home] = accounts as [Account, Account];
  return {
    box,
    project,
    work,
    home,
    async close() {
      for (const a of accounts) {
        await a.instance.close();
        await a.model.close();
      }
      box.cleanup();
    },
  };
}

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

const run = (box: Sandbox, project: string, model: string | null) =>
  runLembas(box, ["run", "--yes", "--cwd", project, ...(model ? ["--model", model] : []), "say hi"]);

describe("a short model ref belongs to the first login that serves its provider", () => {
  test("the first login's list down after it was listed: the turn goes to it from the kept list, and the second instance gets nothing", async () => {
    const setup = await twoLogins({ workListsAtFirst: true });
    close = setup.close;
    const first = await run(setup.box, setup.project, FLASH);
    // Nothing said but the session's closing line.
    expect(afterHeader(first.stderr)).toMatch(/^session ses_[\w-]+ · continue it: [^\n]+\n$/);
    expect(first.code).toBe(0);
    expect(setup.work.model.requests.length).toBe(1);

    setup.work.instance.failModels(500);
    const second = await run(setup.box, setup.project, FLASH);
    // Nothing said but the session's closing line.
    expect(afterHeader(second.stderr)).toMatch(/^session ses_[\w-]+ · continue it: [^\n]+\n$/);
    expect(second.code).toBe(0);
    expect(setup.home.model.requests.length).toBe(0);
    expect(setup.work.model.requests.length).toBe(2);
  }, 60_000);

  test("the first login serves the provider but not that model: the short ref is refused, never sent to the second", async () => {
    const setup = await twoLogins({ workListsAtFirst: true, workServes: "deepseek/deepseek-chat" });
    close = setup.close;
    const short = await run(setup.box, setup.project, FLASH);
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain(`work serves the deepseek models here and has no ${FLASH}; home/${FLASH} is another instance's`);
    expect(setup.home.model.requests.length).toBe(0);
    const long = await run(setup.box, setup.project, `home/${FLASH}`);
    expect(long.code).toBe(0);
    expect(setup.home.model.requests.length).toBeGreaterThan(0);
  }, 60_000);

  test("a first login never listed: the short ref is not given to the second, whose long ref still works", async () => {
    const setup = await twoLogins({ workListsAtFirst: false });
    close = setup.close;
    const short = await run(setup.box, setup.project, FLASH);
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain(`lembas: which instance serves ${FLASH} is not known: work, logged in to earlier, has not listed its models yet`);
    expect(short.stderr).toContain(`home/${FLASH} names another instance's`);
    expect(setup.home.model.requests.length).toBe(0);

    const long = await run(setup.box, setup.project, `home/${FLASH}`);
    // Nothing said but the session's closing line.
    expect(afterHeader(long.stderr)).toMatch(/^session ses_[\w-]+ · continue it: [^\n]+\n$/);
    expect(long.code).toBe(0);
    expect(setup.home.model.requests.length).toBe(1);
  }, 60_000);

  test("no model set and the first login's list down: the default is not taken from the second", async () => {
    const setup = await twoLogins({ workListsAtFirst: true });
    close = setup.close;
    setup.work.instance.failModels(500);
    const turn = await run(setup.box, setup.project, null);
    expect(turn.code).not.toBe(0);
    expect(afterHeader(turn.stderr)).toStartWith("lembas: no model is set, and the instance work, whose first model would be the one, could not be reached: ");
    expect(setup.home.model.requests.length).toBe(0);
  }, 60_000);

  test("once the first login lists again, the short ref is its own again", async () => {
    const setup = await twoLogins({ workListsAtFirst: false });
    close = setup.close;
    setup.work.instance.failModels(null);
    const again = await run(setup.box, setup.project, FLASH);
    expect(again.code).toBe(0);
    expect(setup.work.model.requests.length).toBe(1);
    expect(setup.home.model.requests.length).toBe(0);
  }, 60_000);
});
