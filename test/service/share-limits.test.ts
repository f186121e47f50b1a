/**
 * A terminal's shared session holds the web to what the link holds it to: the web's answers to the
 * terminal's cards are capped at remote.max_mode, and the web's model names are its instance's,
 * mapped with the login of the link they came from (two instances may serve one provider). The
 * real `lembas serve` linked to the simulated instance, the real terminal in tmux.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { type Device, startDevice, TOKEN } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { type Instance, type Link, startInstance } from "../support/instance.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { runLembas } from "../support/run.ts";
import { toolResults } from "../support/screens.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

const FLASH = "deepseek/deepseek-flash";

let device: Device | null = null;
let screen: Screen | null = null;
let other: { model: ScriptedModel; instance: Instance } | null = null;
afterEach(async () => {
  await screen?.close();
  screen = null;
  await device?.close();
  device = null;
  await other?.instance.close();
  await other?.model.close();
  other = null;
});

function config(d: Device, maxMode: string): void {
  writeFileSync(
    join(d.box.configDir, "config.yaml"),
    `model: test/test-model\nconnections:\n  test:\n    base_url: ${d.model.url}\nremote:\n  roots: [${d.work}]\n  max_mode: ${maxMode}\n  approval_timeout: 5\n`,
  );
}

/** The service linked, the terminal open in the project (args), and the announce the link heard. */
async function share(d: Device, args: string[] = [], ready = "test/test-model"): Promise<{ link: Link; s: Screen; announce: Record<string, unknown> }> {
  const link = await d.serve();
  screen = await openScreen(d.box, { cwd: d.project, args });
  await screen.waitFor(ready);
  const announce = (await link.waitForNotification("_lembas/session/announce", 15_000)).params as Record<string, unknown>;
  return { link, s: screen, announce };
}

/** The link's instance (inst) serves `models` too, listed again by logging in again (its place in the login order kept). */
async function instServes(d: Device, models: { id: string; kind?: string }[]): Promise<void> {
  d.model.setModels([{ id: "test-model" }, ...models]);
  const again = await runLembas(d.box, ["login", d.instance.url, "--token-stdin", "--name", "inst"], { stdin: TOKEN });
  if (again.code !== 0) throw new Error(`login inst again failed: ${again.stderr}`);
}

describe.skipIf(!HAVE_TMUX)("the web's answer to a terminal turn's card is capped at remote.max_mode", () => {
  const ask = async (maxMode: string) => {
    const d = await startDevice();
    device = d;
    config(d, maxMode);
    const { link, s } = await share(d);
    link.onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "once" }, _meta: { lembas: { command: "touch web-choice.txt" } } }));
    d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch model-choice.txt" } }] }), step({ text: "turn over" }));
    await s.write("make a file");
    await s.type("Enter");
    await s.waitFor("turn over", 20_000);
    return d;
  };

  test("under plan, a web that answers yes with a command of its own runs nothing", async () => {
    const d = await ask("plan");
    expect(existsSync(join(d.project, "web-choice.txt"))).toBe(false);
    expect(existsSync(join(d.project, "model-choice.txt"))).toBe(false);
    expect(toolResults(d.model)).toContain("the web's approval was not taken: under the device's limit for the web (remote.max_mode plan) it approves nothing that changes or runs anything");
  }, 60_000);

  test("under edit (commands ask), the web's corrected command is not taken as approved", async () => {
    const d = await ask("edit");
    expect(existsSync(join(d.project, "web-choice.txt"))).toBe(false);
    expect(existsSync(join(d.project, "model-choice.txt"))).toBe(false);
    expect(toolResults(d.model)).toContain("the command the web wrote instead was not run");
  }, 60_000);
});

describe.skipIf(!HAVE_TMUX)("the web's model names in a terminal's shared session", () => {
  test("_lembas/configure with two instances serving one provider chooses the link's own instance's model", async () => {
    const d = await startDevice();
    device = d;
    // Another instance serving the same provider, logged in to first: the short refs are its.
    const model = await startModel({ models: [{ id: FLASH, kind: "chat" }] });
    const instance = await startInstance({ token: TOKEN, model, name: "other" });
    other = { model, instance };
    const login = await runLembas(d.box, ["login", instance.url, "--token-stdin", "--name", "other"], { stdin: TOKEN });
    if (login.code !== 0) throw new Error(`login other failed: ${login.stderr}`);
    const db = openDb(join(d.box.stateDir, "lembas.db"));
    db.query("UPDATE logins SET position = (SELECT min(position) - 1 FROM logins) WHERE name = 'other'").run();
    db.close();
    await instServes(d, [{ id: FLASH, kind: "chat" }]);

    const { link, announce } = await share(d);
    const sessionId = announce.sessionId as string;
    const from = link.notifications.length;
    const result = await link.request("_lembas/configure", { sessionId, model: FLASH }, 15_000);
    expect(result).toEqual({ model: `inst/${FLASH}`, effort: expect.any(String) });
    const event = await link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { event: { type: string } }).event.type === "model", 10_000, from);
    expect((event.params as { event: unknown }).event).toMatchObject({ ref: `inst/${FLASH}`, connection: "inst", instance: true });
    // The turns go to the link's own account.
    d.model.push(step({ text: "from inst" }));
    await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] }, 20_000);
    expect(model.requests).toEqual([]);
  }, 60_000);

  test("the announce says instance: true for the instance's own model under its short ref", async () => {
    const d = await startDevice();
    device = d;
    await instServes(d, [{ id: "acme/coder", kind: "chat" }]);
    const { announce } = await share(d, ["--model", "acme/coder"], "acme/coder");
    expect(announce).toMatchObject({ model: "acme/coder", instance: true });
  }, 60_000);
});
