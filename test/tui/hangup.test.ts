import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { step } from "../support/engine.ts";
import { alive, killSleeps, sleepsWith, uniqueSleep, waitUntil } from "../support/procs.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX, type Screen } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
let markers: string[] = [];
afterEach(() => killSleeps(...markers));

/** The terminal, in auto mode, in a turn whose model started a job (`sleep A`), then a command that left `setsid sleep B` and waits on `sleep C`. */
async function busyScreen(): Promise<{ screen: Screen; sleeps: string[] }> {
  const sleeps = [uniqueSleep(), uniqueSleep(), uniqueSleep()];
  markers = sleeps;
  const [job, away, waited] = sleeps;
  suite.model.push(
    step({ toolCalls: [{ name: "bash", arguments: { command: `sleep ${job}`, run_in_background: true } }] }),
    step({ toolCalls: [{ name: "bash", arguments: { command: `setsid sleep ${away} & sleep ${waited}` } }] }),
    step({ text: "never reached" }),
  );
  const screen = await suite.open(["--mode", "auto"]);
  await screen.type("start things", "Enter");
  expect(await waitUntil(() => sleeps.every((s) => sleepsWith(s).length === 1), 15_000)).toBe(true);
  return { screen, sleeps };
}

const nothingLeft = (sleeps: string[]) => waitUntil(() => sleeps.every((s) => sleepsWith(s).length === 0), 15_000);

describe.skipIf(!HAVE_TMUX || !existsSync("/proc"))("a terminal that goes leaves nothing running", () => {
  test("SIGHUP mid-command ends the terminal UI cleanly (exit 0), its job and its command stopped", async () => {
    const { screen, sleeps } = await busyScreen();
    process.kill(screen.pid(), "SIGHUP");
    expect(await screen.exited(15_000)).toBe(0);
    expect(await nothingLeft(sleeps)).toBe(true);
  });

  test("SIGKILL mid-command: the watchdog stops its job and its command", async () => {
    const { screen, sleeps } = await busyScreen();
    const pid = screen.pid();
    process.kill(pid, "SIGKILL");
    expect(await waitUntil(() => !alive(pid), 15_000)).toBe(true);
    expect(await nothingLeft(sleeps)).toBe(true);
  });

  test("the terminal window closed mid-command (tmux gone): lembas ends, its job and its command stopped", async () => {
    const { screen, sleeps } = await busyScreen();
    const pid = screen.pid();
    Bun.spawnSync(["tmux", "-L", screen.socket, "kill-server"]);
    expect(await waitUntil(() => !alive(pid), 15_000)).toBe(true);
    expect(await nothingLeft(sleeps)).toBe(true);
  });
});
