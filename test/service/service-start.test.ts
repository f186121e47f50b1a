/**
 * lembas serve starting: on a state directory with a space and an é in its name, two at once on
 * one state directory, and refusing a control socket it cannot have.
 */
import { describe, expect, test } from "bun:test";
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Device, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { LEMBAS } from "../support/run.ts";
import { prompt, shareSuite } from "../support/share-suite.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const share = shareSuite();

describe.skipIf(!HAVE_TMUX)("lembas serve starting", () => {
  test("a state directory with a space and an é: the service starts, the terminal connects and shares", async () => {
    const d = await startDevice();
    share.device = d;
    const odd = join(d.box.dir, "état du lembas");
    renameSync(d.box.stateDir, odd);
    d.box.env.LEMBAS_STATE_DIR = odd;
    const link = await d.serve();
    await share.open(d);
    const announce = await link.waitForNotification("_lembas/session/announce", 15_000);
    const { sessionId } = announce.params as { sessionId: string };
    d.model.push(step({ text: "through the odd path" }));
    expect((await prompt(link, sessionId, "hi", "odd-1")).stopReason).toBe("end_turn");
  }, 40_000);

  test("two services started at once on one state directory: one links, the other exits 2 with one line", async () => {
    const d = await startDevice();
    share.device = d;
    const spawn = () =>
      Bun.spawn([...LEMBAS, "serve"], { cwd: d.box.dir, env: { ...d.box.env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
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
});

describe("lembas serve refusing a control socket it cannot have", () => {
  /** `lembas serve` in the device's sandbox with `stateDir`, to its end (killed after 15 s: code 137, not 2): its code and stderr. */
  async function serveIn(d: Device, stateDir: string): Promise<{ code: number; stderr: string }> {
    const proc = Bun.spawn([...LEMBAS, "serve"], { cwd: d.box.dir, env: { ...d.box.env, LEMBAS_STATE_DIR: stateDir }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    return { code, stderr: stderr.trim() };
  }

  test("a state directory whose socket path is too long: one line saying what to do, and it exits 2 at once (not a service left running without its socket)", async () => {
    const d = await startDevice();
    share.device = d;
    const long = join(d.box.dir, "s".repeat(120));
    renameSync(d.box.stateDir, long);
    const run = await serveIn(d, long);
    expect(run.stderr).toContain("set LEMBAS_STATE_DIR to a shorter directory");
    expect(run.stderr.split("\n")).toHaveLength(1);
    expect(run.code).toBe(2);
  }, 30_000);

  test("a file in the way of the control socket: one line, and it exits 2 at once", async () => {
    const d = await startDevice();
    share.device = d;
    rmSync(join(d.box.stateDir, "service.sock"), { force: true });
    writeFileSync(join(d.box.stateDir, "service.sock"), "not a socket");
    const run = await serveIn(d, d.box.stateDir);
    expect(run.stderr).toContain("is in the way of the control socket");
    expect(run.stderr.split("\n")).toHaveLength(1);
    expect(run.code).toBe(2);
  }, 30_000);
});
