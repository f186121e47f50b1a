/**
 * Cards at both ends of a terminal's shared session: the real `lembas serve` linked to the
 * simulated instance, the real terminal in tmux in a project inside remote.roots. An approval,
 * question or plan shows at the terminal and reaches the link as a patient request; the first
 * answer wins and the other end's card is taken down.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Device, LEMBAS_INIT, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import type { Link, RpcRequest } from "../support/instance.ts";
import { digitOf, toolResults } from "../support/screens.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

let device: Device | null = null;
let screen: Screen | null = null;
afterEach(async () => {
  await screen?.close();
  screen = null;
  await device?.close();
  device = null;
});

/** A device serving one link, the terminal open in its project (args), and the shared session's id. */
async function sharedTerminal(opts: { args?: string[]; maxMode?: string } = {}): Promise<{ d: Device; link: Link; s: Screen; sessionId: string }> {
  const first = await startDevice();
  device = first;
  const d = opts.maxMode ? await withMaxMode(first, opts.maxMode) : first;
  const link = await d.serve();
  screen = await openScreen(d.box, { cwd: d.project, args: opts.args ?? [] });
  await screen.waitFor("test/test-model");
  const announce = (await link.waitForNotification("_lembas/session/announce", 15_000)).params as { sessionId: string };
  return { d, link, s: screen, sessionId: announce.sessionId };
}

async function withMaxMode(d: Device, maxMode: string): Promise<Device> {
  const { writeFileSync } = await import("node:fs");
  writeFileSync(
    join(d.box.configDir, "config.yaml"),
    `model: test/test-model\nconnections:\n  test:\n    base_url: ${d.model.url}\nremote:\n  roots: [${d.work}]\n  max_mode: ${maxMode}\n  approval_timeout: 5\n`,
  );
  return d;
}

/** A link request the test answers when it says so (or never). */
function held(link: Link, method: string): { answer(result: unknown): void } {
  let answer: (result: unknown) => void = () => {};
  const answered = new Promise<unknown>((resolve) => {
    answer = resolve;
  });
  link.onRequest(method, () => answered);
  return { answer: (result) => answer(result) };
}

const bash = (command: string) => step({ toolCalls: [{ name: "bash", arguments: { command } }] });
const toolCallIdOf = (r: RpcRequest) => (r.params as { toolCall: { toolCallId: string } }).toolCall.toolCallId;

describe.skipIf(!HAVE_TMUX)("cards of a terminal's shared session", () => {
  test("an approval answered at the terminal: the link had it patient, hears settled, and the turn goes on", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    held(link, "session/request_permission");
    d.model.push(bash("touch at-terminal.txt"), step({ text: "made it here" }));
    await s.write("make a file");
    await s.type("Enter");
    const card = await link.waitForRequest("session/request_permission", 15_000);
    expect(card.params).toMatchObject({ sessionId, toolCall: { status: "pending", rawInput: { command: "touch at-terminal.txt" } }, _meta: { lembas: { patient: true } } });
    await s.waitFor("Yes, once");
    await s.type(digitOf(s, "Yes, once"));
    const settled = await link.waitForNotification("_lembas/permission/settled", 10_000);
    expect(settled.params).toEqual({ sessionId, toolCallId: toolCallIdOf(card) });
    await s.waitFor("made it here", 15_000);
    expect(existsSync(join(d.project, "at-terminal.txt"))).toBe(true);
  }, 60_000);

  test("an approval answered on the web: the terminal's card goes from its screen and the tool runs", async () => {
    const { d, link, s } = await sharedTerminal();
    const web = held(link, "session/request_permission");
    d.model.push(bash("touch from-web.txt"), step({ text: "the web said yes" }));
    await s.write("make a file");
    await s.type("Enter");
    await link.waitForRequest("session/request_permission", 15_000);
    await s.waitFor("Yes, once");
    web.answer({ outcome: { outcome: "selected", optionId: "once" } });
    await s.waitGone("Yes, once", 10_000);
    await s.waitFor("the web said yes", 15_000);
    expect(existsSync(join(d.project, "from-web.txt"))).toBe(true);
    // The web answered: nothing to take down on the link that answered.
    expect(link.notifications.some((n) => n.method === "_lembas/permission/settled")).toBe(false);
  }, 60_000);

  test("a patient approval is not timed out by the device (remote.approval_timeout is 5 s)", async () => {
    const { d, link, s } = await sharedTerminal();
    held(link, "session/request_permission");
    d.model.push(bash("touch late.txt"), step({ text: "late but allowed" }));
    await s.write("make a file");
    await s.type("Enter");
    await link.waitForRequest("session/request_permission", 15_000);
    await s.waitFor("Yes, once");
    await Bun.sleep(6500);
    expect(s.text()).toContain("Yes, once");
    expect(link.notifications.some((n) => n.method === "_lembas/permission/settled")).toBe(false);
    await s.type(digitOf(s, "Yes, once"));
    await s.waitFor("late but allowed", 15_000);
    expect(existsSync(join(d.project, "late.txt"))).toBe(true);
  }, 60_000);

  test("a question answered on the web: the terminal's card goes and the model gets the web's answer", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    const web = held(link, "_lembas/question");
    d.model.push(
      step({ toolCalls: [{ name: "ask_user", arguments: { questions: [{ header: "Database", question: "Which database?", options: [{ label: "SQLite" }, { label: "Postgres" }] }] } }] }),
      step({ text: "postgres then" }),
    );
    await s.write("set up storage");
    await s.type("Enter");
    const card = await link.waitForRequest("_lembas/question", 15_000);
    expect(card.params).toMatchObject({ sessionId, questions: [{ header: "Database", question: "Which database?" }], _meta: { lembas: { patient: true } } });
    await s.waitFor("Which database?");
    web.answer({ outcome: "answered", answers: [{ kind: "options", labels: ["Postgres"] }] });
    await s.waitFor("postgres then", 15_000);
    expect(s.text()).not.toContain("Type your own answer");
    expect(toolResults(d.model)).toContain("→ Postgres");
  }, 60_000);

  test("an open card is sent again on the link that comes up after the link dropped, and answered there", async () => {
    const { d, link, s } = await sharedTerminal();
    held(link, "session/request_permission");
    d.model.push(bash("touch after-redial.txt"), step({ text: "answered on the new link" }));
    await s.write("make a file");
    await s.type("Enter");
    const first = await link.waitForRequest("session/request_permission", 15_000);
    await link.close();
    const again = await d.instance.waitForLink(15_000);
    again.onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "once" } }));
    await again.hello;
    await again.request("initialize", LEMBAS_INIT);
    const resent = await again.waitForRequest("session/request_permission", 10_000);
    expect(toolCallIdOf(resent)).toBe(toolCallIdOf(first));
    expect(resent.params).toMatchObject({ _meta: { lembas: { patient: true } } });
    await s.waitFor("answered on the new link", 15_000);
    expect(existsSync(join(d.project, "after-redial.txt"))).toBe(true);
  }, 60_000);

  test("an open card is sent again after the service restarts (the terminal shares again), and answered on the web", async () => {
    const { d, link, s } = await sharedTerminal();
    held(link, "session/request_permission");
    d.model.push(bash("touch after-restart.txt"), step({ text: "answered after the restart" }));
    await s.write("make a file");
    await s.type("Enter");
    const first = await link.waitForRequest("session/request_permission", 15_000);
    await d.kill("SIGKILL");
    const again = await d.serve();
    again.onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "once" } }));
    const resent = await again.waitForRequest("session/request_permission", 15_000);
    expect(toolCallIdOf(resent)).toBe(toolCallIdOf(first));
    await s.waitFor("answered after the restart", 15_000);
    expect(existsSync(join(d.project, "after-restart.txt"))).toBe(true);
  }, 60_000);

  test("a plan approved from the web into edit mode goes on in remote.max_mode (manual), though the terminal could run edit", async () => {
    const { d, link, s, sessionId } = await sharedTerminal({ args: ["--mode", "plan"], maxMode: "manual" });
    const web = held(link, "_lembas/plan");
    d.model.push(step({ toolCalls: [{ name: "plan_submit", arguments: { plan: "# Tidy\n\n1. sort the imports\n" } }] }), step({ text: "carrying out the plan" }));
    await s.waitFor("test/test-model · plan");
    await s.write("plan a tidy-up");
    await s.type("Enter");
    const card = await link.waitForRequest("_lembas/plan", 15_000);
    expect(card.params).toMatchObject({ sessionId, text: "# Tidy\n\n1. sort the imports\n", _meta: { lembas: { patient: true } } });
    await s.waitFor("1. sort the imports");
    web.answer({ outcome: "approve", mode: "edit" });
    await s.waitFor("carrying out the plan", 15_000);
    await s.waitFor("test/test-model · manual");
    expect(toolResults(d.model)).toContain("was approved; the session is now in manual mode");
  }, 60_000);

  test("a plan approved from the web where remote.max_mode is plan decides nothing: the plan is not approved", async () => {
    const { d, link, s } = await sharedTerminal({ args: ["--mode", "plan"], maxMode: "plan" });
    const web = held(link, "_lembas/plan");
    d.model.push(step({ toolCalls: [{ name: "plan_submit", arguments: { plan: "# Tidy\n\n1. sort the imports\n" } }] }), step({ text: "still planning" }));
    await s.write("plan a tidy-up");
    await s.type("Enter");
    await link.waitForRequest("_lembas/plan", 15_000);
    await s.waitFor("1. sort the imports");
    web.answer({ outcome: "approve", mode: "edit" });
    await s.waitFor("still planning", 15_000);
    expect(s.text()).toContain("test/test-model · plan");
    expect(toolResults(d.model)).not.toContain("was approved");
  }, 60_000);
});
