import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Device, LEMBAS_INIT, startDevice } from "../support/device.ts";
import { isStep, step } from "../support/engine.ts";
import { type Link, RpcError, type RpcNotification } from "../support/instance.ts";
import { contentText } from "../support/model.ts";

/** The device the test runs on, and the test's own project folder in it. */
let d: Device;
let project: string;
/** The device the test started for itself (the last one it started): closed after it. */
let own: Device | null = null;
afterEach(async () => {
  await own?.close();
  own = null;
});
/**
 * Started services shared by the tests that need nothing of their own but the approval timeout
 * (one each), closed after the file: a test keeps to its own project folder and sessions.
 */
const shared = new Map<number, { device: Device; link: Link }>();
afterAll(async () => {
  for (const { device } of shared.values()) await device.close();
});

const config = (d0: { modelUrl: string; work: string }, timeout: number, maxMode: string) =>
  `model: test/test-model\nconnections:\n  test:\n    base_url: ${d0.modelUrl}\nremote:\n  roots: [${d0.work}]\n  max_mode: ${maxMode}\n  approval_timeout: ${timeout}\nembedding: null\n`;

async function configured(timeout: number, maxMode: string): Promise<Device> {
  const made = await startDevice();
  writeFileSync(join(made.box.configDir, "config.yaml"), config({ modelUrl: made.model.url, work: made.work }, timeout, maxMode));
  return made;
}

/** A device of this test's own whose cards wait `timeout` seconds, with remote.max_mode `maxMode`. */
async function device(timeout = 30, maxMode = "auto"): Promise<Device> {
  d = await configured(timeout, maxMode);
  own = d;
  project = d.project;
  return d;
}

let projects = 0;
/** The link of the shared service whose cards wait `timeout` seconds (max_mode auto), and a new project folder for this test. */
async function sharedLink(timeout = 30): Promise<Link> {
  let entry = shared.get(timeout);
  if (!entry) {
    const device = await configured(timeout, "auto");
    entry = { device, link: await device.serve() };
    shared.set(timeout, entry);
  }
  d = entry.device;
  project = join(d.project, `test-${++projects}`);
  mkdirSync(project);
  return entry.link;
}

const newSession = async (link: Link, mode = "edit") =>
  ((await link.request("session/new", { cwd: project, mcpServers: [], _meta: { mode } })) as { sessionId: string }).sessionId;
const prompt = (link: Link, sessionId: string, text = "go") => link.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, 60_000);
/** A notification of `method` about the session `sessionId`: the shared link carries other tests' too. */
const ofSession = (method: string, sessionId: string) => (n: RpcNotification) => n.method === method && (n.params as { sessionId?: string }).sessionId === sessionId;
const lastToolResult = () => {
  const messages = d.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
  return contentText(messages.findLast((m) => m.role === "tool")?.content);
};
const bash = (command: string) => step({ toolCalls: [{ name: "bash", arguments: { command } }] });

describe("approvals", () => {
  test("allow once, with the card's _meta; a corrected command runs instead", async () => {
    const link = await sharedLink();
    const cards: Record<string, unknown>[] = [];
    link.onRequest("session/request_permission", (params) => {
      cards.push(params as Record<string, unknown>);
      return { outcome: { outcome: "selected", optionId: "once" }, _meta: { lembas: { command: "touch fixed.txt" } } };
    });
    d.model.push(bash("touch asked.txt"), step({ text: "ok" }));
    await prompt(link, await newSession(link));
    expect(cards[0]).toMatchObject({
      toolCall: { kind: "execute", status: "pending", rawInput: { command: "touch asked.txt" } },
      options: [
        { optionId: "once", kind: "allow_once" },
        { optionId: "session", kind: "allow_always" },
        { optionId: "deny", kind: "reject_once" },
      ],
      _meta: { lembas: { reason: "edit mode asks before running commands", always: "touch commands, for this session" } },
    });
    expect(existsSync(join(project, "fixed.txt"))).toBe(true);
    expect(existsSync(join(project, "asked.txt"))).toBe(false);
    expect(lastToolResult()).toContain("corrected the command to: touch fixed.txt");
  });

  test("deny with feedback: the model is told why", async () => {
    const link = await sharedLink();
    link.onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "deny" }, _meta: { lembas: { feedback: "use make instead" } } }));
    d.model.push(bash("touch x.txt"), step({ text: "ok" }));
    await prompt(link, await newSession(link));
    expect(existsSync(join(project, "x.txt"))).toBe(false);
    expect(lastToolResult()).toContain("use make instead");
  });

  test("allow for the session: the next command of that program is not asked", async () => {
    const link = await sharedLink();
    let asked = 0;
    link.onRequest("session/request_permission", () => {
      asked++;
      return { outcome: { outcome: "selected", optionId: "session" } };
    });
    d.model.push(bash("touch a.txt"), bash("touch b.txt"), step({ text: "ok" }));
    await prompt(link, await newSession(link));
    expect(asked).toBe(1);
    expect(existsSync(join(project, "b.txt"))).toBe(true);
  });

  test("no answer within approval_timeout is a denial, and settled takes the card down", async () => {
    const link = await sharedLink(1);
    link.onRequest("session/request_permission", () => new Promise(() => {}));
    d.model.push(bash("touch late.txt"), step({ text: "ok" }));
    const sessionId = await newSession(link);
    const from = link.notifications.length;
    const started = Date.now();
    await prompt(link, sessionId);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const settled = await link.waitForNotification(ofSession("_lembas/permission/settled", sessionId), undefined, from);
    const card = link.requests.find((r) => r.method === "session/request_permission" && (r.params as { sessionId: string }).sessionId === sessionId);
    expect(settled.params).toEqual({ sessionId, toolCallId: (card?.params as { toolCall: { toolCallId: string } }).toolCall.toolCallId });
    expect(existsSync(join(project, "late.txt"))).toBe(false);
  });

  test("two cards open at once (two sessions) answered in reverse order: each gets its own answer", async () => {
    const link = await sharedLink();
    const waiting = new Map<string, (answer: unknown) => void>();
    link.onRequest("session/request_permission", (params) => new Promise((resolve) => waiting.set((params as { sessionId: string }).sessionId, resolve)));
    d.model.push(bash("touch one.txt"), bash("touch two.txt"), step({ text: "ok" }), step({ text: "ok" }));
    const a = await newSession(link);
    const b = await newSession(link);
    const first = prompt(link, a, "one");
    while (waiting.size < 1) await Bun.sleep(10);
    const second = prompt(link, b, "two");
    while (waiting.size < 2) await Bun.sleep(10);
    waiting.get(b)?.({ outcome: { outcome: "selected", optionId: "once" } });
    waiting.get(a)?.({ outcome: { outcome: "selected", optionId: "deny" } });
    await Promise.all([first, second]);
    expect(existsSync(join(project, "one.txt"))).toBe(false);
    expect(existsSync(join(project, "two.txt"))).toBe(true);
  });

  test("a card still waiting when the link drops is shown again on the next link, and answered there", async () => {
    d = await device();
    const link = await d.serve();
    link.onRequest("session/request_permission", () => new Promise(() => {}));
    d.model.push(bash("touch later.txt"), step({ text: "done after reconnect" }));
    const sessionId = await newSession(link);
    void prompt(link, sessionId).catch(() => {});
    const card = await link.waitForRequest("session/request_permission");
    await link.close(1011);
    const again = await d.instance.waitForLink(10_000);
    again.onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "once" } }));
    await again.hello;
    await again.request("initialize", LEMBAS_INIT);
    // The new link takes up the session by itself: the card is shown again without being asked for.
    const shown = await again.waitForRequest("session/request_permission");
    expect((shown.params as { toolCall: { toolCallId: string } }).toolCall.toolCallId).toBe((card.params as { toolCall: { toolCallId: string } }).toolCall.toolCallId);
    await again.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { event: { type: string } }).event.type === "done");
    expect(existsSync(join(project, "later.txt"))).toBe(true);
  }, 30_000);
});

describe("questions", () => {
  const ask = (labels: string[], extra: Record<string, unknown> = {}) =>
    step({
      toolCalls: [
        {
          name: "ask_user",
          arguments: {
            questions: [{ header: "DB", question: "Which database?", options: labels.map((label, i) => ({ label, ...(i === 1 ? { recommended: true } : {}) })) }],
            ...extra,
          },
        },
      ],
    });

  test("the card: recommended first, labels cut at 240; the whole label reaches the model", async () => {
    const link = await sharedLink();
    const long = `Postgres ${"x".repeat(300)}`;
    let card: { questions: { options: { label: string }[] }[]; why?: string } | null = null;
    link.onRequest("_lembas/question", (params) => {
      card = params as typeof card;
      return { outcome: "answered", answers: [{ kind: "options", labels: [long.slice(0, 240)] }] };
    });
    d.model.push(ask(["SQLite", long], { why: "to pick a driver" }), step({ text: "ok" }));
    await prompt(link, await newSession(link));
    const options = card!.questions[0]!.options;
    expect(options.map((o) => o.label.length)).toEqual([240, 6]);
    expect(options[1]!.label).toBe("SQLite");
    expect(card!.why).toBe("to pick a driver");
    expect(lastToolResult()).toContain(long);
  });

  test("custom, back and skipped answers; anything else reads as dismissed", async () => {
    const link = await sharedLink();
    const answers: unknown[] = [
      { outcome: "answered", answers: [{ kind: "custom", text: "MariaDB" }] },
      { outcome: "answered", answers: [{ kind: "back", text: "what is the difference?" }] },
      { outcome: "answered", answers: [{ kind: "skipped" }] },
      { outcome: "whatever" },
    ];
    link.onRequest("_lembas/question", () => answers.shift());
    const sessionId = await newSession(link);
    const results: string[] = [];
    for (let i = 0; i < 4; i++) {
      d.model.push(ask(["A", "B"]), step({ text: "ok" }));
      await prompt(link, sessionId);
      results.push(lastToolResult());
    }
    expect(results[0]).toContain("in their own words: MariaDB");
    expect(results[1]).toContain("the person asks you: what is the difference?");
    expect(results[2]).toContain("no answer");
    expect(results[3]).toContain("dismissed");
  });

  test("a client that answers with method-not-found is treated as protocol 1: nobody is asked again", async () => {
    // A service of its own: the service remembers of its link that nobody there can be asked.
    d = await device();
    const link = await d.serve();
    let asked = 0;
    link.onRequest("_lembas/question", () => {
      asked++;
      throw new RpcError(-32601, "Method not found");
    });
    const sessionId = await newSession(link);
    d.model.push(ask(["A", "B"]), step({ text: "ok" }));
    await prompt(link, sessionId);
    expect(lastToolResult()).toContain("Nobody can be asked");
    d.model.push(ask(["A", "B"]), step({ text: "ok" }));
    await prompt(link, sessionId);
    expect(asked).toBe(1);
  });

  test("a protocol 1 client never receives a question or a plan", async () => {
    d = await device();
    const link = await d.serve({ init: { protocolVersion: 1, clientCapabilities: { _meta: { lembas: true } } } });
    const sessionId = await newSession(link, "plan");
    d.model.push(ask(["A", "B"]), step({ toolCalls: [{ name: "plan_submit", arguments: { plan: "# Plan\n1. do it", title: "Do it" } }] }), step({ text: "ok" }));
    await prompt(link, sessionId);
    expect(link.requests.filter((r) => r.method === "_lembas/question" || r.method === "_lembas/plan")).toEqual([]);
    expect(lastToolResult()).toContain("nobody can approve it here");
  });
});

describe("timeouts of questions and plans", () => {
  test("a question nobody answers in time is dismissed for the model and taken down", async () => {
    const link = await sharedLink(1);
    link.onRequest("_lembas/question", () => new Promise(() => {}));
    d.model.push(
      step({ toolCalls: [{ name: "ask_user", arguments: { questions: [{ header: "Q", question: "Which?", options: [{ label: "A" }, { label: "B" }] }] } }] }),
      step({ text: "ok" }),
    );
    const sessionId = await newSession(link);
    const from = link.notifications.length;
    await prompt(link, sessionId);
    expect(lastToolResult()).toContain("dismissed");
    await link.waitForNotification(ofSession("_lembas/permission/settled", sessionId), undefined, from);
  });

  test("a plan nobody answers in time is dismissed for the model and taken down", async () => {
    const link = await sharedLink(1);
    link.onRequest("_lembas/plan", () => new Promise(() => {}));
    d.model.push(step({ toolCalls: [{ name: "plan_submit", arguments: { plan: "# P\n1. x", title: "P" } }] }), step({ text: "ok" }));
    const sessionId = await newSession(link, "plan");
    const from = link.notifications.length;
    await prompt(link, sessionId);
    expect(lastToolResult()).toContain("dismissed");
    await link.waitForNotification(ofSession("_lembas/permission/settled", sessionId), undefined, from);
  });
});

describe("plans", () => {
  const submit = step({ toolCalls: [{ name: "plan_submit", arguments: { plan: "# Plan\n\n1. Add the route\n2. Test it", title: "Add route" } }] });

  test("approve: the plan is saved, the card shows it, and the session goes on in the chosen mode", async () => {
    const link = await sharedLink();
    let card: { path: string; text: string; toolCallId: string } | null = null;
    link.onRequest("_lembas/plan", (params) => {
      card = params as typeof card;
      return { outcome: "approve", mode: "manual" };
    });
    d.model.push(submit, step({ text: "starting" }));
    const sessionId = await newSession(link, "plan");
    await prompt(link, sessionId);
    expect(card!.path).toMatch(/^\.agent\/plans\/\d{4}-\d{2}-\d{2}-add-route\.md$/);
    expect(card!.text).toContain("Add the route");
    expect(readFileSync(join(project, card!.path), "utf8")).toContain("Add the route");
    expect(lastToolResult()).toContain("manual mode");
    const mode = await link.waitForNotification((n) => ofSession("session/update", sessionId)(n) && JSON.stringify(n.params).includes("current_mode_update"));
    expect(JSON.stringify(mode.params)).toContain('"currentModeId":"manual"');
  });

  test("approve with edit mode; a device capped at manual lowers it; one capped at plan decides nothing", async () => {
    for (const [cap, expected] of [["auto", "edit mode"], ["manual", "manual mode"], ["plan", "dismissed"]] as const) {
      d = await device(30, cap);
      const link = await d.serve();
      link.onRequest("_lembas/plan", () => ({ outcome: "approve", mode: "edit" }));
      d.model.push(submit, step({ text: "ok" }));
      await prompt(link, await newSession(link, "plan"));
      expect(lastToolResult()).toContain(expected);
      if (cap !== "plan") await d.close();
    }
  }, 60_000);

  test("revise with feedback, and dismissed", async () => {
    const link = await sharedLink();
    const answers: unknown[] = [{ outcome: "revise", feedback: "split step 2" }, { outcome: "dismissed" }];
    link.onRequest("_lembas/plan", () => answers.shift());
    const sessionId = await newSession(link, "plan");
    d.model.push(submit, step({ text: "ok" }));
    await prompt(link, sessionId);
    expect(lastToolResult()).toContain("split step 2");
    d.model.push(submit, step({ text: "ok" }));
    await prompt(link, sessionId);
    expect(lastToolResult()).toContain("dismissed");
  });
});
