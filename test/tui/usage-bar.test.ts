import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import { type Instance, startInstance } from "../support/instance.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { runLembas, type Sandbox, sandbox } from "../support/run.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

const TOKEN = "device-token-for-the-bar";
const USAGE = {
  plan: { name: "Pro", credits_per_month: 1000 },
  balance: 412.5,
  balance_money: 4.13,
  month: { from: "2026-12-01", tokens_in: 12000, tokens_out: 3400, cost: 87.25 },
  device: { tokens_in: 1500, tokens_out: 200, cost: 4.5 },
  unit: "credits",
  currency: "EUR",
  credit_value: 0.01,
  windows: [{ window: "5h", limit: 50, spent: 12.5, frees_at: null }],
};
const FIGURE = "412.5 credits (€4.13)";

let model: ScriptedModel;
let instance: Instance;
let box: Sandbox & { project: string };
const screens: Screen[] = [];

beforeEach(async () => {
  model = await startModel();
  instance = await startInstance({ token: TOKEN, model });
  const base = sandbox();
  box = { ...base, project: join(base.dir, "project") };
  mkdirSync(box.project, { recursive: true });
  const made = await runLembas(box, ["login", instance.url, "--token-stdin"], { stdin: TOKEN });
  expect(made.code).toBe(0);
});
afterEach(async () => {
  for (const screen of screens.splice(0)) await screen.close();
  await instance.close();
  await model.close();
  box.cleanup();
});

async function open(): Promise<Screen> {
  const screen = await openScreen(box, { cwd: box.project, env: { LEMBAS_LOCAL_PORTS: "1", TZ: "UTC" } });
  screens.push(screen);
  return screen;
}

describe.skipIf(!HAVE_TMUX)("the balance in the status bar", () => {
  test("shows the balance of the login whose model the session uses, then stale once the instance fails, fresh again after", async () => {
    instance.setUsage(USAGE);
    const screen = await open();
    await screen.waitFor(`tokens · ${FIGURE}`);
    expect(screen.text()).not.toContain("stale");

    instance.failUsage({ kind: "500" });
    model.push(step({ text: "the first answer" }));
    await screen.type("hello", "Enter");
    await screen.waitFor("the first answer");
    await screen.waitFor(`${FIGURE}, stale`);

    instance.failUsage({ kind: "garbage" });
    model.push(step({ text: "the second answer" }));
    await screen.type("again", "Enter");
    await screen.waitFor("the second answer");
    expect(screen.text()).toContain(`${FIGURE}, stale`);

    instance.failUsage(null);
    instance.setUsage({ ...USAGE, balance: 400, balance_money: 4 });
    model.push(step({ text: "the third answer" }));
    await screen.type("once more", "Enter");
    await screen.waitFor("the third answer");
    await screen.waitFor("400 credits (€4.00)");
    expect(screen.text()).not.toContain("stale");
    expect(screen.text()).not.toContain(TOKEN);
  });

  test("admin shows unlimited; an instance without usage (404) shows nothing, and the session goes on", async () => {
    instance.setUsage({ ...USAGE, admin: true });
    const screen = await open();
    await screen.waitFor("tokens · unlimited");

    instance.setUsage(null);
    model.push(step({ text: "an answer" }));
    await screen.type("hello", "Enter");
    await screen.waitFor("an answer");
    await screen.waitGone("unlimited");
    expect(screen.text()).not.toContain("credits");
  });

  test("/usage shows the whole of it", async () => {
    instance.setUsage(USAGE);
    const screen = await open();
    await screen.waitFor(FIGURE);
    await screen.type("/usage", "Enter");
    await screen.waitFor("window 5h: 12.5 credits (€0.13) spent of 50 credits (€0.50)");
    const text = screen.text();
    expect(text).toContain(`· the usage of 1 login, as its instance reports it:\n\n· lembas (${instance.url})\n    plan Pro`);
    expect(text).not.toContain("asking…");
    expect(text).toContain("plan Pro, 1,000 credits (€10.00) a month");
    expect(text).toContain(`balance ${FIGURE}`);
    expect(text).toContain("this month (from 2026-12-01): 12,000 tokens in, 3,400 tokens out, 87.25 credits (€0.87)");
    expect(text).toContain("this device: 1,500 tokens in, 200 tokens out, 4.5 credits (€0.05)");
  });

  test("/usage with the instance failing says so in one line, and the session goes on", async () => {
    instance.setUsage(USAGE);
    const screen = await open();
    await screen.waitFor(FIGURE);
    instance.failUsage({ kind: "500" });
    await screen.type("/usage", "Enter");
    await screen.waitFor(`the usage of lembas (${instance.url}) could not be read: it answered 500`);
    model.push(step({ text: "still answering" }));
    await screen.type("hello", "Enter");
    await screen.waitFor("still answering");
  });
});
