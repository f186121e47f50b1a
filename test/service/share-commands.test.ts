/**
 * Sharing by name and stopping: `/share`, `/unshare` and `lembas --share` in the real terminal in
 * tmux, the real `lembas serve` linked to the simulated instance. Also what every share says on
 * the link (the command set after the announce, busy as it is then) and what the status bar says
 * of it (shared, with which instance).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { IPC, wsUnixUrl } from "../../src/app/ipc-protocol.ts";
import { openDb } from "../../src/store/db.ts";
import { takeHold } from "../../src/store/holds.ts";
import { insertSession, newSessionId } from "../../src/store/sessions.ts";
import { VERSION } from "../../src/version.ts";
import { type Device, LEMBAS_INIT, type ServiceTest, sharedServiceEach, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import type { Link, RpcNotification } from "../support/instance.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

let device: Device | null = null;
let screen: Screen | null = null;
afterEach(async () => {
  await screen?.close();
  screen = null;
  await device?.close();
  device = null;
});

type Announce = { sessionId: string; cwd: string; busy: boolean; origin: string };
type Update = { sessionId: string; update: { sessionUpdate: string; availableCommands?: { name: string }[] } };

const announced = (n: RpcNotification) => n.method === "_lembas/session/announce";
const commandsOf = (sessionId: string) => (n: RpcNotification) =>
  n.method === "session/update" && (n.params as Update).sessionId === sessionId && (n.params as Update).update.sessionUpdate === "available_commands_update";

/** A device, its service linked (unless told not to), and a directory outside remote.roots. */
async function device_(opts: { serve?: boolean } = {}): Promise<{ d: Device; link: Link | null; elsewhere: string }> {
  const d = await startDevice();
  device = d;
  const elsewhere = join(d.box.dir, "elsewhere");
  mkdirSync(elsewhere, { recursive: true });
  const link = opts.serve === false ? null : await d.serve();
  return { d, link, elsewhere };
}

/** The file's one service, with the test's own model and project (work/project-N). */
let shared: ServiceTest;
sharedServiceEach((t) => {
  shared = t;
});

/**
 * The file's one service, for a test that neither drops its link nor restarts it: its link, a
 * directory of the test's own outside remote.roots, and where the test's notifications begin.
 */
function sharedDevice(): { d: Device; link: Link; elsewhere: string; from: number } {
  const { d, link, project } = shared;
  const elsewhere = join(d.box.dir, `elsewhere-${basename(project)}`);
  mkdirSync(elsewhere, { recursive: true });
  return { d, link, elsewhere, from: link.notifications.length };
}

/** The link drops; the service redials and the new link is initialized as LLeMbas would. */
async function relink(d: Device, link: Link): Promise<Link> {
  await link.close(1011, "instance restarting");
  const again = await d.instance.waitForLink(15_000);
  await again.hello;
  await again.request("initialize", LEMBAS_INIT);
  return again;
}

describe.skipIf(!HAVE_TMUX)("sharing by name, and stopping", () => {
  test("/share of a session outside remote.roots announces it; a web prompt runs in it; /share again says it already is", async () => {
    const { d, link, elsewhere, from } = sharedDevice();
    screen = await openScreen(d.box, { cwd: elsewhere });
    await screen.waitFor("test/test-model");
    await Bun.sleep(1000);
    expect(link.notifications.slice(from).some(announced)).toBe(false);
    expect(screen.text()).not.toContain("shared ·");
    await screen.type("/share", "Enter");
    const announce = (await link.waitForNotification(announced, 10_000, from)).params as Announce;
    expect(announce).toMatchObject({ cwd: elsewhere, origin: "terminal", busy: false });
    await screen.waitFor("shared with the web: inst");
    await screen.waitFor("shared · inst");

    d.model.push(step({ text: "answered by name" }));
    const result = (await link.request("session/prompt", { sessionId: announce.sessionId, prompt: [{ type: "text", text: "from the web" }], _meta: { lembas: { turnId: "web-name-1" } } }, 20_000)) as {
      stopReason: string;
    };
    expect(result.stopReason).toBe("end_turn");
    await screen.waitFor("answered by name");

    await screen.type("/share", "Enter");
    await screen.waitFor("this session is already shared with inst");
  });

  test("/unshare: the link hears left, not available (the terminal holds it); a later link-up does not announce it; /share does", async () => {
    const { d, link } = await device_();
    if (!link) throw new Error("no link");
    screen = await openScreen(d.box, { cwd: d.project });
    const announce = (await link.waitForNotification(announced, 15_000)).params as Announce;
    await screen.waitFor("shared · inst");
    const from = link.notifications.length;
    await screen.type("/unshare", "Enter");
    const left = await link.waitForNotification("_lembas/session/left", 10_000, from);
    expect(left.params).toEqual({ sessionId: announce.sessionId, available: false });
    await screen.waitFor("this session is no longer shared");
    await screen.waitGone("shared · inst");
    await screen.type("/unshare", "Enter");
    await screen.waitFor("this session is not shared");

    const again = await relink(d, link);
    await Bun.sleep(1500);
    expect(again.notifications.some(announced)).toBe(false);
    // Nothing is routed to the terminal for it: the service holds nothing of it either.
    const status = (await again.request("_lembas/session/status", { sessionId: announce.sessionId })) as { held: string };
    expect(status.held).toBe("terminal");

    await screen.type("/share", "Enter");
    const back = (await again.waitForNotification(announced, 10_000)).params as Announce;
    expect(back.sessionId).toBe(announce.sessionId);
  });

  test("lembas --share with no service running says so in one line, works locally, and shares once a service starts", async () => {
    const { d, elsewhere } = await device_({ serve: false });
    screen = await openScreen(d.box, { cwd: elsewhere, args: ["--share"] });
    await screen.waitFor("no service is running: this session is shared as soon as one starts");
    d.model.push(step({ text: "local answer" }));
    await screen.type("works here", "Enter");
    await screen.waitFor("local answer");
    const link = await d.serve();
    const announce = (await link.waitForNotification(announced, 15_000)).params as Announce;
    expect(announce.cwd).toBe(elsewhere);
    await screen.waitFor("shared · inst");
  });

  test("/share with no service running says so, and the session is shared when one starts", async () => {
    const { d, elsewhere } = await device_({ serve: false });
    screen = await openScreen(d.box, { cwd: elsewhere });
    await screen.waitFor("test/test-model");
    await screen.type("/share", "Enter");
    await screen.waitFor("no service is running");
    await screen.type("/unshare", "Enter");
    await screen.waitFor("this session is not shared");
    await screen.type("/share", "Enter");
    const link = await d.serve();
    const announce = (await link.waitForNotification(announced, 15_000)).params as Announce;
    expect(announce.cwd).toBe(elsewhere);
  });

  test("the status bar says shared · <instance> while linked, not shared: no link up when the link drops, and names it again when it comes back", async () => {
    const { d, link } = await device_();
    if (!link) throw new Error("no link");
    screen = await openScreen(d.box, { cwd: d.project });
    await link.waitForNotification(announced, 15_000);
    await screen.waitFor("test/test-model · edit · effort medium · 0 tokens · shared · inst");
    await link.close(1011, "instance restarting");
    await screen.waitFor("not shared: no link up", 10_000);
    const again = await d.instance.waitForLink(15_000);
    await again.hello;
    await again.request("initialize", LEMBAS_INIT);
    await screen.waitFor("shared · inst", 10_000);
    // The service gone: nothing is shared, and the status bar says nothing of it.
    expect(await d.kill("SIGTERM")).toBe(0);
    await screen.waitGone("shared ·", 10_000);
  });

  test("available_commands_update follows the announce, on a link that comes up again and after a service restart", async () => {
    const { d, link } = await device_();
    if (!link) throw new Error("no link");
    screen = await openScreen(d.box, { cwd: d.project });
    const first = await link.waitForNotification(announced, 15_000);
    const { sessionId } = first.params as Announce;
    const commands = (await link.waitForNotification(commandsOf(sessionId), 10_000)).params as Update;
    expect(link.notifications.indexOf(first)).toBeLessThan(link.notifications.findIndex(commandsOf(sessionId)));
    expect(commands.update.availableCommands?.map((c) => c.name)).toContain("compact");
    // A TUI-only command is never listed.
    expect(commands.update.availableCommands?.map((c) => c.name)).not.toContain("share");

    const again = await relink(d, link);
    await again.waitForNotification(announced, 10_000);
    await again.waitForNotification(commandsOf(sessionId), 10_000);

    expect(await d.kill("SIGTERM")).toBe(0);
    const restarted = await d.serve();
    await restarted.waitForNotification(announced, 15_000);
    await restarted.waitForNotification(commandsOf(sessionId), 10_000);
  });

  test("a turn typed in the terminal that writes a command file: the web hears the new command set", async () => {
    const { d, link, from: before } = sharedDevice();
    screen = await openScreen(d.box, { cwd: d.project });
    const { sessionId } = (await link.waitForNotification(announced, 15_000, before)).params as Announce;
    d.model.push(step({ toolCalls: [{ name: "write", arguments: { path: ".agent/commands/hello.md", content: "Say hello." } }] }), step({ text: "made it" }));
    const from = link.notifications.length;
    // The announce reaches the link before the terminal hears its share accepted; a turn that ends
    // before then is not relayed (CI saw the 10 s wait below run out so). The status bar says when.
    await screen.waitFor("shared · inst", 15_000);
    await screen.type("make a /hello command", "Enter");
    await screen.waitFor("made it");
    const names = (n: RpcNotification) => ((n.params as Update).update.availableCommands ?? []).map((c) => c.name);
    const update = await link.waitForNotification((n) => commandsOf(sessionId)(n) && names(n).includes("hello"), 10_000, from);
    expect(names(update)).toContain("hello");
  });

  test("a re-announce says busy as it is then: a turn typed in the terminal is running when the link comes up", async () => {
    const { d, link } = await device_();
    if (!link) throw new Error("no link");
    screen = await openScreen(d.box, { cwd: d.project });
    const first = (await link.waitForNotification(announced, 15_000)).params as Announce;
    expect(first.busy).toBe(false);
    // The answer's first words come at once, the rest once the test has what it checks.
    let release = () => {};
    const hold = new Promise<void>((resolve) => (release = resolve));
    d.model.push(step({ text: "a long answer ".repeat(300), hold }));
    await screen.type("talk a while", "Enter");
    try {
      await link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { event: { type: string } }).event.type === "text", 10_000);
      const again = await relink(d, link);
      const second = (await again.waitForNotification(announced, 10_000)).params as Announce;
      expect(second).toMatchObject({ sessionId: first.sessionId, busy: true });
      await screen.type("Escape");
    } finally {
      release();
    }
  });

  test("@paths from the web in a session shared by name with no roots set: the project's are attached, one outside it is not", async () => {
    const { d } = await device_({ serve: false });
    const configFile = join(d.box.configDir, "config.yaml");
    writeFileSync(configFile, readFileSync(configFile, "utf8").replace(/roots: \[.*\]/, "roots: []"));
    writeFileSync(join(d.project, "inside.txt"), "INSIDE-CONTENT\n");
    writeFileSync(join(d.box.dir, "outside.txt"), "OUTSIDE-SECRET\n");
    const link = await d.serve();
    screen = await openScreen(d.box, { cwd: d.project, args: ["--share"] });
    const announce = (await link.waitForNotification(announced, 15_000)).params as Announce;
    d.model.push(step({ text: "read them" }));
    await link.request(
      "session/prompt",
      { sessionId: announce.sessionId, prompt: [{ type: "text", text: "look at @inside.txt and @../../outside.txt" }], _meta: { lembas: { turnId: "web-paths-1" } } },
      20_000,
    );
    // The turn's request, not the one that names the session.
    const sent = d.model.requests.map((r) => JSON.stringify(r.body)).find((body) => body.includes("look at @inside.txt") && !body.includes("You name coding sessions")) ?? "";
    expect(sent).toContain("INSIDE-CONTENT");
    expect(sent).not.toContain("OUTSIDE-SECRET");
    expect(sent).toContain("@../../outside.txt");
  });
});

/** A bare IPC peer (no tmux): its requests answered by id, initialize answered, nothing else. */
async function ipcPeer(socket: string) {
  const ws = new WebSocket(wsUnixUrl(socket));
  const answers = new Map<number, (m: { result?: unknown; error?: { code: number; message: string } }) => void>();
  ws.addEventListener("message", (e) => {
    const m = JSON.parse(String(e.data));
    if (m.method === "initialize" && m.id !== undefined) ws.send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: 1 } }));
    else if (m.method === undefined) answers.get(m.id)?.(m);
  });
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve(), { once: true });
    ws.addEventListener("error", () => reject(new Error("the IPC WebSocket did not open")), { once: true });
  });
  let id = 0;
  return {
    close: () => ws.close(),
    request(method: string, params: unknown) {
      const n = ++id;
      return new Promise<{ result?: unknown; error?: { code: number; message: string } }>((resolve) => {
        answers.set(n, resolve);
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: n, method, params }));
      });
    },
  };
}

test("a share by name skips only the roots: a session outside them that the peer's process does not hold is still refused", async () => {
  const { d, link, elsewhere, from } = sharedDevice();
  const db = openDb(join(d.box.stateDir, "lembas.db"));
  const id = newSessionId();
  try {
    insertSession(db, { id, root: elsewhere, cwd: elsewhere, mode: "edit", model: null, effort: "medium", origin: "terminal" });
    takeHold(db, id, "terminal");
  } finally {
    db.close();
  }
  const share = () => ({ sessionId: id, cwd: elsewhere, title: "t", model: null, connection: null, mode: "edit", effort: "medium", busy: false, byName: true });
  const spoof = await ipcPeer(join(d.box.stateDir, "service.sock"));
  try {
    await spoof.request("_lembas/ipc/hello", { ipc: IPC, version: VERSION, pid: 4242 });
    const refused = await spoof.request("_lembas/ipc/share", share());
    expect(refused.error?.code).toBe(-32602);
    expect(refused.error?.message).toContain("is not held by this terminal");
  } finally {
    spoof.close();
  }
  const holder = await ipcPeer(join(d.box.stateDir, "service.sock"));
  try {
    await holder.request("_lembas/ipc/hello", { ipc: IPC, version: VERSION, pid: process.pid });
    expect((await holder.request("_lembas/ipc/share", share())).error).toBeUndefined();
    const announce = (await link.waitForNotification(announced, 5000, from)).params as Announce;
    expect(announce).toMatchObject({ sessionId: id, cwd: elsewhere });
  } finally {
    holder.close();
  }
}, 30_000);

describe.skipIf(!HAVE_TMUX)("what was said of sharing lasts past a resume", () => {
  /** Types a prompt (a session with nothing sent is discarded on quit), quits, and gives the session's id. */
  async function promptAndQuit(d: Device, s: Screen, text: string): Promise<string> {
    d.model.push(step({ text: `answer to ${text}` }));
    await s.type(text, "Enter");
    await s.waitFor(`answer to ${text}`);
    await s.type("C-d");
    await s.waitFor("Resume it with: lembas -r");
    return /lembas -r (ses_[\w-]+)/.exec(s.text())?.[1] ?? "";
  }

  test("a session /unshare'd is not shared again when it is resumed", async () => {
    const { d, link, from: before } = sharedDevice();
    screen = await openScreen(d.box, { cwd: d.project });
    await link.waitForNotification(announced, 15_000, before);
    await screen.waitFor("shared · inst");
    await screen.type("/unshare", "Enter");
    await screen.waitFor("this session is no longer shared");
    const id = await promptAndQuit(d, screen, "kept private");
    await screen.close();

    const from = link.notifications.length;
    screen = await openScreen(d.box, { cwd: d.project, args: ["-r", id] });
    await screen.waitFor(`resumed session ${id}`);
    await Bun.sleep(1500);
    expect(link.notifications.slice(from).some(announced)).toBe(false);
    expect(screen.text()).not.toContain("shared ·");
  });

  test("a session shared by name outside the roots is shared again when it is resumed", async () => {
    const { d, link, elsewhere } = sharedDevice();
    screen = await openScreen(d.box, { cwd: elsewhere });
    await screen.waitFor("test/test-model");
    await screen.type("/share", "Enter");
    await screen.waitFor("shared · inst");
    const id = await promptAndQuit(d, screen, "shared by name");
    await screen.close();

    const from = link.notifications.length;
    screen = await openScreen(d.box, { cwd: elsewhere, args: ["-r", id] });
    const again = (await link.waitForNotification(announced, 15_000, from)).params as Announce;
    expect(again.sessionId).toBe(id);
    await screen.waitFor("shared · inst");
  });
});
