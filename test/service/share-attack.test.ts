/**
 * Sharing attacked as a demanding user and an adversary would: the real `lembas serve` linked to
 * the simulated instance, the real terminal in tmux. Each test is one attack: a bad input from the
 * web, a quit or a switch at the wrong moment, a second terminal, a card nobody answers. What it
 * asks: a clear answer (a JSON-RPC error with a sentence, or one line), nothing lost, nothing run
 * twice, no hung process.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Device, newSession, startDevice } from "../support/device.ts";
import { isStep, step } from "../support/engine.ts";
import type { Link, RpcNotification } from "../support/instance.ts";
import { ENTRY, runLembas } from "../support/run.ts";
import { digitOf } from "../support/screens.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

let device: Device | null = null;
const screens: Screen[] = [];
afterEach(async () => {
  for (const s of screens.splice(0)) await s.close();
  await device?.close();
  device = null;
});

type PromptResult = { stopReason: string; _meta: { lembas: { turnId: string } } };

const slow = (n: number, delayMs: number, word = "w") => step({ text: Array.from({ length: n }, (_, i) => `${word}${i} `), chunkDelayMs: delayMs });
const steps = (d: Device) => d.model.requests.filter((r) => isStep(r.body)).length;

const prompt = (link: Link, sessionId: string, text: string, turnId: string, timeoutMs = 20_000) =>
  link.request("session/prompt", { sessionId, prompt: [{ type: "text", text }], _meta: { lembas: { turnId } } }, timeoutMs) as Promise<PromptResult>;

const ofSession = (method: string, sessionId: string) => (n: RpcNotification) => n.method === method && (n.params as { sessionId?: string }).sessionId === sessionId;

const textStarted = (link: Link, sessionId: string, from: number) =>
  link.waitForNotification(
    (n) => ofSession("_lembas/event", sessionId)(n) && (n.params as { event: { type: string } }).event.type === "text",
    10_000,
    from,
  );

async function open(d: Device, args: string[] = [], env: Record<string, string> = {}): Promise<Screen> {
  const s = await openScreen(d.box, { cwd: d.project, args, env });
  screens.push(s);
  await s.waitFor("test/test-model");
  return s;
}

/** A device serving one link, and the terminal open in its project sharing its session. */
async function sharedTerminal(opts: { args?: string[]; maxMode?: string } = {}): Promise<{ d: Device; link: Link; s: Screen; sessionId: string }> {
  const d = await startDevice();
  device = d;
  if (opts.maxMode) {
    writeFileSync(
      join(d.box.configDir, "config.yaml"),
      `model: test/test-model\nconnections:\n  test:\n    base_url: ${d.model.url}\nremote:\n  roots: [${d.work}]\n  max_mode: ${opts.maxMode}\n  approval_timeout: 5\n`,
    );
  }
  const link = await d.serve();
  const s = await open(d, opts.args ?? []);
  const announce = (await link.waitForNotification("_lembas/session/announce", 15_000)).params as { sessionId: string };
  // The link hears the announce before the terminal hears its share accepted: until the status bar
  // says so, /unshare or a turn typed there is not yet the shared session's (CI saw /unshare lost so).
  await s.waitFor("shared · inst", 15_000);
  return { d, link, s, sessionId: announce.sessionId };
}

describe.skipIf(!HAVE_TMUX)("sharing, attacked", () => {
  test("the same turnId sent twice at once to a shared session runs once; both answers carry it", async () => {
    const { d, link, sessionId } = await sharedTerminal();
    d.model.push(slow(20, 20), step({ text: "a second run" }));
    const [a, b] = await Promise.all([prompt(link, sessionId, "once", "dup-1"), prompt(link, sessionId, "once", "dup-1")]);
    expect(a._meta.lembas.turnId).toBe("dup-1");
    expect(b._meta.lembas.turnId).toBe("dup-1");
    expect(steps(d)).toBe(1);
  }, 30_000);

  test("a huge web prompt (3 MB) runs in the terminal's session and the terminal stays responsive", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    d.model.push(step({ text: "read it all" }), step({ text: "typed after" }));
    const huge = `${"lorem ipsum dolor sit amet ".repeat(3 * 1024 * 40)}the end`;
    const started = Date.now();
    const answer = await prompt(link, sessionId, huge, "huge-1", 30_000);
    expect(answer.stopReason).toBe("end_turn");
    expect(Date.now() - started).toBeLessThan(15_000);
    // The terminal draws 3 MB of prompt first: on a busy machine that takes longer than a wait's 5 s.
    await s.waitFor("read it all", 15_000);
    await s.type("and now me", "Enter");
    await s.waitFor("typed after", 10_000);
  }, 45_000);

  test("modes above remote.max_mode from the web are lowered: set_mode, configure, and a /mode command", async () => {
    const { link, s, sessionId } = await sharedTerminal();
    const tried = await link.request("session/set_mode", { sessionId, modeId: "auto" }).catch((e: Error) => e);
    const configured = await link.request("_lembas/configure", { sessionId, mode: "auto" }).catch((e: Error) => e);
    await Bun.sleep(500);
    // The session never ran in auto for the web.
    expect(s.text()).not.toContain("· auto");
    expect(JSON.stringify(link.notifications.filter(ofSession("_lembas/event", sessionId)))).not.toContain('"mode":"auto"');
    expect(tried).not.toBeInstanceOf(Error);
    expect(configured).not.toBeInstanceOf(Error);
  }, 30_000);

  test("Ctrl-D while a web turn runs in the shared session: the terminal ends, the web's prompt is answered, left is said", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    d.model.push(slow(400, 25));
    const from = link.notifications.length;
    const first = prompt(link, sessionId, "long", "quit-run-1", 30_000).catch((e: Error) => e);
    await textStarted(link, sessionId, from);
    await s.type("C-d");
    expect(await s.exited(8000)).toBe(0);
    const result = await first;
    if (!(result instanceof Error)) expect(result.stopReason).toBe("cancelled");
    await link.waitForNotification(ofSession("_lembas/session/left", sessionId), 5000, from);
    // The same turnId again is not run a second time.
    const again = await prompt(link, sessionId, "long", "quit-run-1");
    expect(again._meta.lembas.turnId).toBe("quit-run-1");
    expect(steps(d)).toBe(1);
  }, 40_000);

  test("SIGTERM while a web turn's card is open: the web hears settled and left, its prompt is answered, nothing hangs", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    link.onRequest("session/request_permission", () => new Promise(() => {}));
    d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo x > never.txt" } }] }));
    const from = link.notifications.length;
    const answer = prompt(link, sessionId, "make it", "term-card-1", 30_000).catch((e: Error) => e);
    await link.waitForRequest("session/request_permission", 10_000);
    await s.waitFor("Yes, once");
    process.kill(s.pid(), "SIGTERM");
    expect(await s.exited(8000)).toBe(0);
    await link.waitForNotification(ofSession("_lembas/permission/settled", sessionId), 5000, from);
    await link.waitForNotification(ofSession("_lembas/session/left", sessionId), 5000, from);
    const result = await answer;
    if (!(result instanceof Error)) expect(result.stopReason).toBe("cancelled");
    expect(existsSync(join(d.project, "never.txt"))).toBe(false);
  }, 40_000);

  test("a second terminal `lembas -r` of the session the first shares: refused in one line, the first keeps it and the web's prompts still go there", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    d.model.push(step({ text: "first kept" }));
    await prompt(link, sessionId, "hello", "two-0");
    const second = await openScreen(d.box, { cwd: d.project, args: ["-r", sessionId] });
    screens.push(second);
    // Its one line, before the web's prompt below (a second that took the session would get it).
    const shown = await second.waitFor(/held|another|in use|open in/i, 15_000);
    d.model.push(step({ text: "still the first" }));
    const answer = await prompt(link, sessionId, "who has it", "two-1");
    expect(answer.stopReason).toBe("end_turn");
    await s.waitFor("still the first");
    expect(shown).toMatch(/held|another|in use|open in/i);
  }, 40_000);

  test("a web delete of the terminal's session while a card is open: the web's card goes, the turn is answered, the terminal starts a new one", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    link.onRequest("session/request_permission", () => new Promise(() => {}));
    d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo x > deleted.txt" } }] }));
    const from = link.notifications.length;
    const answer = prompt(link, sessionId, "make it", "del-card-1", 30_000).catch((e: Error) => e);
    await link.waitForRequest("session/request_permission", 10_000);
    await s.waitFor("Yes, once");
    const deleted = await link.request("_lembas/session/delete", { sessionId }, 10_000);
    expect(deleted).toBeDefined();
    await link.waitForNotification(ofSession("_lembas/permission/settled", sessionId), 5000, from);
    const result = await answer;
    if (!(result instanceof Error)) expect(result.stopReason).toBe("cancelled");
    await s.waitGone("Yes, once", 5000);
    const next = await link.waitForNotification((n) => n.method === "_lembas/session/announce" && (n.params as { sessionId: string }).sessionId !== sessionId, 10_000, from);
    expect(next).toBeDefined();
    expect(existsSync(join(d.project, "deleted.txt"))).toBe(false);
  }, 40_000);
  test("the service restarted while a web turn runs in the terminal's session: the turn finishes there, and the same turnId re-sent is not run twice", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    d.model.push(slow(240, 25, "r"));
    const from = link.notifications.length;
    const first = prompt(link, sessionId, "long", "restart-1", 30_000).catch((e: Error) => e);
    await textStarted(link, sessionId, from);
    expect(await d.kill("SIGTERM")).toBe(0);
    expect(await first).toBeInstanceOf(Error);
    const again = await d.serve();
    const announce = await again.waitForNotification(ofSession("_lembas/session/announce", sessionId), 15_000);
    // Sent again while the terminal still runs it.
    expect((announce.params as { busy: boolean }).busy).toBe(true);
    const answer = await prompt(again, sessionId, "long", "restart-1", 30_000);
    expect(answer.stopReason).toBe("end_turn");
    expect(answer._meta.lembas.turnId).toBe("restart-1");
    await s.waitFor("r59");
    expect(steps(d)).toBe(1);
  }, 45_000);

  test("lembas sessions delete of the shared session from a shell while a web turn runs: done in one line, the turn answered, the web hears deleted", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    d.model.push(slow(400, 25));
    const from = link.notifications.length;
    const first = prompt(link, sessionId, "long", "shell-del-1", 30_000).catch((e: Error) => e);
    await textStarted(link, sessionId, from);
    const run = await runLembas(d.box, ["sessions", "delete", sessionId], { cwd: d.project });
    expect(run.code).toBe(0);
    const result = await first;
    if (!(result instanceof Error)) expect(result.stopReason).toBe("cancelled");
    await link.waitForNotification(ofSession("_lembas/session/deleted", sessionId), 5000, from);
    await link.waitForNotification((n) => n.method === "_lembas/session/announce" && (n.params as { sessionId: string }).sessionId !== sessionId, 10_000, from);
    expect(s.exitCode()).toBeNull();
  }, 40_000);

  test("/new while a web prompt waits behind a running web turn: the queued prompt is run (here or at the service), once, and answered", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    d.model.push(slow(100, 25), step({ text: "the queued one ran" }));
    const from = link.notifications.length;
    const first = prompt(link, sessionId, "long", "new-1", 30_000).catch((e: Error) => e);
    await textStarted(link, sessionId, from);
    const second = prompt(link, sessionId, "queued", "new-2", 30_000).catch((e: Error) => e);
    await Bun.sleep(300);
    await s.type("/new", "Enter");
    await link.waitForNotification(ofSession("_lembas/session/left", sessionId), 10_000, from);
    const [a, b] = await Promise.all([first, second]);
    expect(a).not.toBeInstanceOf(Error);
    expect(b).toMatchObject({ stopReason: "end_turn", _meta: { lembas: { turnId: "new-2" } } });
    expect(steps(d)).toBe(2);
  }, 45_000);

  test("a state directory with a space and an é: the service starts, the terminal connects and shares", async () => {
    const d = await startDevice();
    device = d;
    const odd = join(d.box.dir, "état du lembas");
    renameSync(d.box.stateDir, odd);
    d.box.env.LEMBAS_STATE_DIR = odd;
    const link = await d.serve();
    await open(d);
    const announce = await link.waitForNotification("_lembas/session/announce", 15_000);
    const { sessionId } = announce.params as { sessionId: string };
    d.model.push(step({ text: "through the odd path" }));
    expect((await prompt(link, sessionId, "hi", "odd-1")).stopReason).toBe("end_turn");
  }, 40_000);

  test("two services started at once on one state directory: one links, the other exits 2 with one line", async () => {
    const d = await startDevice();
    device = d;
    const spawn = () =>
      Bun.spawn([process.execPath, ENTRY, "serve"], { cwd: d.box.dir, env: { ...d.box.env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const both = [spawn(), spawn()];
    try {
      const loser = await Promise.race(both.map(async (p, i) => ({ i, code: await p.exited })));
      expect(loser.code).toBe(2);
      const stderr = (await new Response(both[loser.i]!.stderr).text()).trim();
      expect(stderr.split("\n")).toHaveLength(1);
      expect(stderr).toMatch(/already running|starting/);
      const winner = both[1 - loser.i]!;
      await d.instance.waitForLink(10_000);
      expect(winner.exitCode).toBeNull();
    } finally {
      for (const p of both) p.kill("SIGKILL");
      await Promise.all(both.map((p) => p.exited));
    }
  }, 30_000);
  test("Ctrl-C on the card of a web turn at the terminal: the turn is interrupted, the web's card is settled and its late answer runs nothing", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    let answerCard: (result: unknown) => void = () => {};
    link.onRequest("session/request_permission", () => new Promise((resolve) => (answerCard = resolve)));
    d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo x > late.txt" } }] }), step({ text: "should not run" }));
    const from = link.notifications.length;
    const answer = prompt(link, sessionId, "make it", "ctrlc-1", 30_000).catch((e: Error) => e);
    await link.waitForRequest("session/request_permission", 10_000);
    await s.waitFor("Yes, once");
    await s.type("C-c");
    await link.waitForNotification(ofSession("_lembas/permission/settled", sessionId), 5000, from);
    const result = await answer;
    if (!(result instanceof Error)) expect(result.stopReason).toBe("cancelled");
    answerCard({ outcome: { outcome: "selected", optionId: "once" } });
    await Bun.sleep(800);
    expect(existsSync(join(d.project, "late.txt"))).toBe(false);
    expect(steps(d)).toBe(1);
  }, 40_000);

  test("a link that never answers a patient card and disconnects: the terminal answers it, the turn goes on; the next link is not given it", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    link.onRequest("session/request_permission", () => new Promise(() => {}));
    d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo x > kept.txt" } }] }), step({ text: "went on" }));
    void prompt(link, sessionId, "make it", "gone-1", 30_000).catch(() => {});
    await link.waitForRequest("session/request_permission", 10_000);
    await s.waitFor("Yes, once");
    await link.close();
    await Bun.sleep(500);
    await s.type(digitOf(s, "Yes, once"));
    await s.waitFor("went on");
    expect(existsSync(join(d.project, "kept.txt"))).toBe(true);
    const next = await d.instance.waitForLink(15_000);
    await next.hello;
    await next.request("initialize", { protocolVersion: 1, clientCapabilities: { _meta: { lembas: { protocol: 2 } } } });
    await next.waitForNotification(ofSession("_lembas/session/announce", sessionId), 10_000);
    await Bun.sleep(500);
    expect(next.requests.some((r) => r.method === "session/request_permission")).toBe(false);
  }, 45_000);

  test("after /unshare a web prompt naming the session is refused with a sentence (the terminal still holds it), not run behind its back", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    const from = link.notifications.length;
    await s.type("/unshare", "Enter");
    await link.waitForNotification(ofSession("_lembas/session/left", sessionId), 15_000, from);
    const error = await prompt(link, sessionId, "still there?", "after-unshare-1", 10_000).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/another lembas process|held|terminal/);
    expect(steps(d)).toBe(0);
    // The terminal goes on with it.
    d.model.push(step({ text: "mine still" }));
    await s.type("hello", "Enter");
    await s.waitFor("mine still");
  }, 40_000);
  test("a web delete of a session shared by name outside the roots: the new session is not shared, and the status bar stops saying so", async () => {
    const d = await startDevice();
    device = d;
    const link = await d.serve();
    const elsewhere = join(d.box.dir, "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    const s = await openScreen(d.box, { cwd: elsewhere, args: ["--share"] });
    screens.push(s);
    const { sessionId } = (await link.waitForNotification("_lembas/session/announce", 15_000)).params as { sessionId: string };
    await s.waitFor("shared · inst");
    const from = link.notifications.length;
    await link.request("_lembas/session/delete", { sessionId }, 10_000);
    await link.waitForNotification(ofSession("_lembas/session/deleted", sessionId), 5000, from);
    await s.waitGone("shared · inst", 5000);
    expect(link.notifications.slice(from).some((n) => n.method === "_lembas/session/announce")).toBe(false);
  }, 40_000);

  test("/delete at the terminal of a session shared by name outside the roots: the status bar stops saying shared", async () => {
    const d = await startDevice();
    device = d;
    const link = await d.serve();
    const elsewhere = join(d.box.dir, "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    d.model.push(step({ text: "something to delete" }));
    const s = await openScreen(d.box, { cwd: elsewhere, args: ["--share"] });
    screens.push(s);
    const { sessionId } = (await link.waitForNotification("_lembas/session/announce", 15_000)).params as { sessionId: string };
    await s.waitFor("shared · inst");
    await s.type("hello", "Enter");
    await s.waitFor("something to delete");
    await s.type("/delete", "Enter");
    await s.waitFor("Delete it");
    await s.type("Down", "Enter");
    await link.waitForNotification(ofSession("_lembas/session/deleted", sessionId), 5000);
    await s.waitGone("shared · inst", 5000);
  }, 40_000);
  test("a web prompt carrying terminal escape sequences is shown at the terminal without them acting (no title set, no clipboard written)", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    const recording = await s.record();
    d.model.push(step({ text: "plain answer" }));
    const evil = "look \u001b]0;PWNED\u0007 here \u001b]52;c;ZXZpbA==\u0007 and \u001b[2J\u001b[31mred\u001b[0m end";
    await prompt(link, sessionId, evil, "esc-1");
    await s.waitFor("plain answer");
    await s.waitFor("end");
    const bytes = recording.bytes();
    expect(bytes).toContain("here");
    expect(bytes).not.toContain("\u001b]0;PWNED");
    expect(bytes).not.toContain("\u001b]52;");
    expect(bytes).not.toContain("\u001b[2J\u001b[31mred");
  }, 30_000);
  test("two web deletes of the terminal's session at once: both answered, one new session, shared, and the terminal fine", async () => {
    const { link, s, sessionId } = await sharedTerminal();
    const from = link.notifications.length;
    const [a, b] = await Promise.all([
      link.request("_lembas/session/delete", { sessionId }, 10_000).catch((e: Error) => e),
      link.request("_lembas/session/delete", { sessionId }, 10_000).catch((e: Error) => e),
    ]);
    await Bun.sleep(1500);
    const announced = link.notifications.slice(from).filter((n) => n.method === "_lembas/session/announce").map((n) => (n.params as { sessionId: string }).sessionId);
    expect(new Set(announced).size).toBe(1);
    expect([a, b].filter((r) => r instanceof Error).map((e) => (e as Error).message).join(" ")).not.toMatch(/internal|undefined|TypeError/i);
    expect(s.text()).not.toMatch(/could not|error/i);
    expect(s.exitCode()).toBeNull();
  }, 30_000);

  test("SIGHUP with a web turn running and another queued: the terminal ends, the queued one runs once at the service", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    d.model.push(slow(200, 25), step({ text: "queued ran" }));
    const from = link.notifications.length;
    const first = prompt(link, sessionId, "long", "hup-1", 30_000).catch((e: Error) => e);
    await textStarted(link, sessionId, from);
    const second = prompt(link, sessionId, "queued", "hup-2", 30_000);
    await Bun.sleep(300);
    process.kill(s.pid(), "SIGHUP");
    expect(await s.exited(8000)).toBe(0);
    expect(await second).toMatchObject({ stopReason: "end_turn", _meta: { lembas: { turnId: "hup-2" } } });
    await first;
    expect(steps(d)).toBe(2);
  }, 40_000);
  test("two terminals `lembas -r` of one session the web runs a turn in at the service: one takes it, the other says so in one line, the web's queued prompt reaches the one that has it", async () => {
    const d = await startDevice();
    device = d;
    const link = await d.serve();
    const sessionId = await newSession(link, d.project);
    d.model.push(slow(120, 25), step({ text: "queued, answered by the winner" }));
    const from = link.notifications.length;
    const first = prompt(link, sessionId, "a long one", "race-1", 30_000);
    await textStarted(link, sessionId, from);
    const second = prompt(link, sessionId, "the queued one", "race-2", 30_000);
    await Bun.sleep(200);
    const a = await openScreen(d.box, { cwd: d.project, args: ["-r", sessionId] });
    screens.push(a);
    const b = await openScreen(d.box, { cwd: d.project, args: ["-r", sessionId] });
    screens.push(b);
    expect(await first).toMatchObject({ stopReason: "end_turn" });
    expect(await second).toMatchObject({ stopReason: "end_turn", _meta: { lembas: { turnId: "race-2" } } });
    await Bun.sleep(1500);
    const shows = [a, b].map((s) => s.text());
    const winners = shows.filter((t) => t.includes("queued, answered by the winner"));
    expect(winners).toHaveLength(1);
    const loser = shows.find((t) => !t.includes("queued, answered by the winner")) ?? "";
    expect(loser).toMatch(/another lembas process|held/);
    const status = (await link.request("_lembas/session/status", { sessionId })) as { held: string };
    expect(status.held).toBe("terminal");
    expect(steps(d)).toBe(2);
  }, 60_000);
  test("bad session requests from the web to a shared session get a JSON-RPC error with a sentence, and the terminal goes on", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    const errors: string[] = [];
    const bad = async (method: string, params: object) => {
      const r = await link.request(method, { sessionId, ...params }, 10_000).then(
        (ok) => `ok ${JSON.stringify(ok).slice(0, 200)}`,
        (e: Error) => e.message,
      );
      errors.push(`${method}: ${r}`);
    };
    await bad("session/prompt", { prompt: [] });
    await bad("session/prompt", { prompt: "not a list" });
    await bad("_lembas/configure", { model: "nowhere/none" });
    await bad("session/set_mode", { modeId: "godmode" });
    await bad("_lembas/session/title", { title: 42 });
    // Each is refused with what is wrong (an empty prompt too: it would call the model with nothing).
    expect(errors[0]).toContain("the prompt is empty");
    for (const e of errors) expect(e).toMatch(/: Invalid params: .{10,}/);
    d.model.push(step({ text: "still fine" }));
    await s.type("hi", "Enter");
    await s.waitFor("still fine");
  }, 30_000);

  test("a very long title from the web is kept within reason: the announce and the terminal do not carry a megabyte", async () => {
    const { link, sessionId } = await sharedTerminal();
    const result = await link.request("_lembas/session/title", { sessionId, title: "t".repeat(1_000_000) }, 10_000).catch((e: Error) => e);
    const status = (await link.request("_lembas/session/status", { sessionId })) as { title?: string };
    if (!(result instanceof Error)) expect((status.title ?? "").length).toBeLessThan(10_000);
  }, 30_000);
  test("a link answering cards that were never asked (unknown ids, a card's id twice): dropped; the real card still waits and its answer counts", async () => {
    const { d, link, s, sessionId } = await sharedTerminal();
    let answerCard: (result: unknown) => void = () => {};
    link.onRequest("session/request_permission", () => new Promise((resolve) => (answerCard = resolve)));
    d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo x > real.txt" } }] }), step({ text: "the real answer counted" }));
    const answer = prompt(link, sessionId, "make it", "fake-card-1", 30_000);
    const card = await link.waitForRequest("session/request_permission", 10_000);
    const once = { outcome: { outcome: "selected", optionId: "once" } };
    link.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: "lembas-card-00000000-0000-0000-0000-000000000000", result: once }));
    link.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: 987654, result: once }));
    link.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: "lembas-card-x", error: { code: -32601, message: "no" } }));
    await Bun.sleep(500);
    expect(existsSync(join(d.project, "real.txt"))).toBe(false);
    await s.waitFor("Yes, once");
    answerCard(once);
    expect((await answer).stopReason).toBe("end_turn");
    // The same card's id answered again later: nothing more happens.
    link.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: card.id, result: once }));
    await s.waitFor("the real answer counted");
    expect(existsSync(join(d.project, "real.txt"))).toBe(true);
    expect(steps(d)).toBe(2);
  }, 30_000);
});

describe("lembas serve refusing a control socket it cannot have", () => {
  /** `lembas serve` in the device's sandbox with `stateDir`, to its end (killed after 15 s): its code and stderr. */
  async function serveIn(d: Device, stateDir: string): Promise<{ code: number; stderr: string; ms: number }> {
    const started = Date.now();
    const proc = Bun.spawn([process.execPath, ENTRY, "serve"], { cwd: d.box.dir, env: { ...d.box.env, LEMBAS_STATE_DIR: stateDir }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    return { code, stderr: stderr.trim(), ms: Date.now() - started };
  }

  test("a state directory whose socket path is too long: one line saying what to do, and it exits 2 at once (not a service left running without its socket)", async () => {
    const d = await startDevice();
    device = d;
    const long = join(d.box.dir, "s".repeat(120));
    renameSync(d.box.stateDir, long);
    const run = await serveIn(d, long);
    expect(run.stderr).toContain("set LEMBAS_STATE_DIR to a shorter directory");
    expect(run.stderr.split("\n")).toHaveLength(1);
    expect(run.code).toBe(2);
    expect(run.ms).toBeLessThan(10_000);
  }, 30_000);

  test("a file in the way of the control socket: one line, and it exits 2 at once", async () => {
    const d = await startDevice();
    device = d;
    rmSync(join(d.box.stateDir, "service.sock"), { force: true });
    writeFileSync(join(d.box.stateDir, "service.sock"), "not a socket");
    const run = await serveIn(d, d.box.stateDir);
    expect(run.stderr).toContain("is in the way of the control socket");
    expect(run.stderr.split("\n")).toHaveLength(1);
    expect(run.code).toBe(2);
    expect(run.ms).toBeLessThan(10_000);
  }, 30_000);
});
