import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { type Device, linkedSession } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { alive, killSleeps, sleepsWith, uniqueSleep, waitUntil } from "../support/procs.ts";

let d: Device | null = null;
let markers: string[] = [];
const strays: Bun.Subprocess[] = [];
afterEach(async () => {
  killSleeps(...markers);
  for (const proc of strays.splice(0)) proc.kill("SIGKILL");
  await d?.close();
  d = null;
});

/** The children of PID whose command line holds TEXT. */
function childrenWith(pid: number, text: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        return ppid === pid && readFileSync(`/proc/${entry}/cmdline`, "latin1").includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A process's start time, as /proc/PID/stat has it (the 22nd field). */
function startTime(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? "";
}

/** A `sleep MARKER` carrying a lembas run mark that names OWNER (pid and start time) as the lembas that started it. */
function markedSleep(marker: string, owner: { pid: number; start: string }): Bun.Subprocess {
  const ns = /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? "0";
  const mark = `${ns}.${owner.pid}.${owner.start}.${crypto.randomUUID()}`;
  const proc = Bun.spawn(["sleep", marker], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LEMBAS_RUN: mark }, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  strays.push(proc);
  return proc;
}

describe.skipIf(!existsSync("/proc"))("what a killed lembas left running", () => {
  test("a service killed with -9 (its watchdog too) leaves its jobs running; started again, it stops them", async () => {
    const made = await linkedSession();
    d = made.d;
    const { link, sessionId } = made;
    link.onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "once" } }));
    const [job, away, waited] = [uniqueSleep(), uniqueSleep(), uniqueSleep()];
    markers = [job, away, waited];
    const background = (command: string) => step({ toolCalls: [{ name: "bash", arguments: { command, run_in_background: true } }] });
    d.model.push(background(`sleep ${job}`), background(`setsid sleep ${away} & sleep ${waited}`), step({ text: "both run" }));
    await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "start two jobs" }] }, 30_000);
    expect(await waitUntil(() => markers.every((m) => sleepsWith(m).length === 1))).toBe(true);

    const service = d.service?.pid ?? 0;
    const watchdogs = childrenWith(service, "lembas-watchdog");
    expect(watchdogs).toHaveLength(1);
    for (const pid of watchdogs) process.kill(pid, "SIGKILL");
    await d.kill("SIGKILL");
    // Nothing stopped them: they run on, owned by nobody.
    expect(await waitUntil(() => watchdogs.every((pid) => !alive(pid)))).toBe(true);
    expect(markers.every((m) => sleepsWith(m).length === 1)).toBe(true);

    await d.serve();
    expect(await waitUntil(() => markers.every((m) => sleepsWith(m).length === 0))).toBe(true);
    // The jobs' shells and the sandbox's processes besides the sleeps.
    expect(await d.waitForLog("left running when it was killed")).toMatch(new RegExp(`stopped \\d+ process\\(es\\) that lembas pid ${service} started and left running when it was killed`));
  });

  test("SIGHUP (the terminal it was started from closed) stops the service as SIGTERM does: exit 0, its jobs stopped", async () => {
    const made = await linkedSession();
    d = made.d;
    const { link, sessionId } = made;
    link.onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "once" } }));
    const job = uniqueSleep();
    markers = [job];
    d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: `sleep ${job}`, run_in_background: true } }] }), step({ text: "it runs" }));
    await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "start a job" }] }, 30_000);
    expect(await waitUntil(() => sleepsWith(job).length === 1)).toBe(true);
    expect(await d.kill("SIGHUP")).toBe(0);
    expect(sleepsWith(job)).toEqual([]);
    expect(d.log()).toContain("stopping: cancelling running turns");
  });

  test("the service stops only what a lembas that is gone left: a running lembas's commands are left alone", async () => {
    const made = await linkedSession();
    d = made.d;
    await d.kill("SIGTERM");
    const [theirs, orphan] = [uniqueSleep(), uniqueSleep()];
    markers = [theirs, orphan];
    // This test process stands for a lembas that runs; a process that has ended for one that is gone.
    markedSleep(theirs, { pid: process.pid, start: startTime(process.pid) });
    const gone = Bun.spawn(["sleep", "30"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    const goneStart = startTime(gone.pid);
    gone.kill("SIGKILL");
    await gone.exited;
    markedSleep(orphan, { pid: gone.pid, start: goneStart });
    expect(await waitUntil(() => markers.every((m) => sleepsWith(m).length === 1))).toBe(true);

    await d.serve();
    expect(await waitUntil(() => sleepsWith(orphan).length === 0)).toBe(true);
    expect(sleepsWith(theirs)).toHaveLength(1);
  });
});
