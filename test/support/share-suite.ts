/**
 * One shared-session test file's surroundings: the real `lembas serve` linked to the simulated
 * instance, the real terminal in tmux sharing its session. After each test every screen opened and
 * the device are closed.
 *
 * ```ts
 * const share = shareSuite();
 * test("…", async () => {
 *   const { d, link, s, sessionId } = await share.sharedTerminal();
 * });
 * ```
 */
import { afterEach } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Device, type ServiceTest, sharedServiceEach, startDevice } from "./device.ts";
import { isStep, step } from "./engine.ts";
import type { Link, RpcNotification } from "./instance.ts";
import { openScreen, type Screen } from "./tmux.ts";

export type PromptResult = { stopReason: string; _meta: { lembas: { turnId: string } } };

export type ShareSuite = {
  /** The device the test started: closed after it. */
  device: Device | null;
  /** Screens the test opened itself: closed after it. */
  readonly screens: Screen[];
  /** The terminal in the device's project (`lembas ARGS`), once it shows its model. */
  open(d: Device, args?: string[], env?: Record<string, string>): Promise<Screen>;
  /**
   * A device serving one link, and the terminal open in its project sharing its session. With
   * `oneService` (and no maxMode of its own) the device and link are the file's one service's, the
   * model and project the test's own; `own` gives the test a device of its own all the same (a test
   * that kills or restarts the service, or drops its link).
   */
  sharedTerminal(opts?: { args?: string[]; maxMode?: string; own?: boolean }): Promise<{ d: Device; link: Link; s: Screen; sessionId: string }>;
  /** With `oneService`: the file's one service as the running test sees it (its model and project the test's own). */
  service(): ServiceTest;
};

/**
 * With `oneService`, the tests share one started service (test/support/device.ts's
 * sharedServiceEach) where they need no config of their own; each test's waits on the link must
 * then pick its own session's notifications, from the length they had when it began.
 */
export function shareSuite(opts: { oneService?: boolean } = {}): ShareSuite {
  let service: ServiceTest | null = null;
  if (opts.oneService) {
    sharedServiceEach((t) => {
      service = t;
    });
  }
  const suite: ShareSuite = {
    device: null,
    screens: [],
    async open(d, args = [], env = {}) {
      const s = await openScreen(d.box, { cwd: d.project, args, env });
      suite.screens.push(s);
      await s.waitFor("test/test-model");
      return s;
    },
    service() {
      if (!service) throw new Error("service(): the suite has no service of its own (shareSuite({ oneService: true }))");
      return service;
    },
    async sharedTerminal(opts = {}) {
      if (service && !opts.maxMode && !opts.own) {
        const { d, link, project } = service;
        const from = link.notifications.length;
        const s = await suite.open(d, opts.args ?? []);
        const announced = (n: RpcNotification) => n.method === "_lembas/session/announce" && (n.params as { cwd: string }).cwd === project;
        const announce = (await link.waitForNotification(announced, 15_000, from)).params as { sessionId: string };
        await s.waitFor("shared · inst", 15_000);
        return { d, link, s, sessionId: announce.sessionId };
      }
      const d = await startDevice();
      suite.device = d;
      if (opts.maxMode) {
        writeFileSync(
          join(d.box.configDir, "config.yaml"),
          `model: test/test-model\nconnections:\n  test:\n    base_url: ${d.model.url}\nremote:\n  roots: [${d.work}]\n  max_mode: ${opts.maxMode}\n  approval_timeout: 5\n`,
        );
      }
      const link = await d.serve();
      const s = await suite.open(d, opts.args ?? []);
      const announce = (await link.waitForNotification("_lembas/session/announce", 15_000)).params as { sessionId: string };
      // The link hears the announce before the terminal hears its share accepted: until the status bar
      // says so, /unshare or a turn typed there is not yet the shared session's (CI saw /unshare lost so).
      await s.waitFor("shared · inst", 15_000);
      return { d, link, s, sessionId: announce.sessionId };
    },
  };
  afterEach(async () => {
    for (const s of suite.screens.splice(0)) await s.close();
    await suite.device?.close();
    suite.device = null;
  });
  return suite;
}

/** A step whose text comes in `n` words, one each `delayMs`. */
export const slow = (n: number, delayMs: number, word = "w") => step({ text: Array.from({ length: n }, (_, i) => `${word}${i} `), chunkDelayMs: delayMs });

/** How many step requests the model has had. */
export const steps = (d: Device) => d.model.requests.filter((r) => isStep(r.body)).length;

/** A web prompt with its turn id. */
export const prompt = (link: Link, sessionId: string, text: string, turnId: string, timeoutMs = 20_000) =>
  link.request("session/prompt", { sessionId, prompt: [{ type: "text", text }], _meta: { lembas: { turnId } } }, timeoutMs) as Promise<PromptResult>;

export const ofSession = (method: string, sessionId: string) => (n: RpcNotification) => n.method === method && (n.params as { sessionId?: string }).sessionId === sessionId;

/** The first text event of the session's turn the link hears after notification `from`. */
export const textStarted = (link: Link, sessionId: string, from: number) =>
  link.waitForNotification(
    (n) => ofSession("_lembas/event", sessionId)(n) && (n.params as { event: { type: string } }).event.type === "text",
    10_000,
    from,
  );

/** Where a test's requests and notifications on a link begin: the earlier tests' come before. */
export type LinkFrom = { requests: number; notifications: number };

/**
 * The terminal open in a shared-service test's project (sharedServiceEach), once the link heard
 * it announce its session and the status bar says it is shared (a turn typed before that is not
 * the shared session's). `opened` gets the screen as soon as it exists, for the file to close it.
 */
export async function terminalOnService(t: ServiceTest, opened: (s: Screen) => void, args: string[] = []): Promise<{ s: Screen; sessionId: string; from: LinkFrom }> {
  const { d, link, project } = t;
  const from = { requests: link.requests.length, notifications: link.notifications.length };
  const s = await openScreen(d.box, { cwd: project, args });
  opened(s);
  await s.waitFor("test/test-model");
  const announced = (n: RpcNotification) => n.method === "_lembas/session/announce" && (n.params as { cwd: string }).cwd === project;
  const announce = (await link.waitForNotification(announced, 15_000, from.notifications)).params as { sessionId: string };
  await s.waitFor("shared · inst", 15_000);
  return { s, sessionId: announce.sessionId, from };
}
