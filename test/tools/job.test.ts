import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { bashTool } from "../../src/tools/bash.ts";
import { jobTool } from "../../src/tools/job.ts";
import { Jobs, MAX_RUNNING_JOBS } from "../../src/tools/jobs.ts";
import { alive as isAlive, waitUntil } from "../support/procs.ts";
import { cleanupTempDirs, makeContext, run } from "./context.ts";

afterAll(cleanupTempDirs);

const registries: Jobs[] = [];
/** A context whose job registry is stopped after the test. */
function context(jobs = new Jobs()) {
  registries.push(jobs);
  return makeContext({ jobs });
}
afterEach(async () => {
  await Promise.all(registries.splice(0).map((jobs) => jobs.stopAll()));
});

describe.skipIf(!existsSync("/proc"))("background jobs", () => {
  test("a job starts at once, its output is read with and without an offset, listed, stopped, and its processes are gone", async () => {
    const { ctx } = context();
    // The command runs for 100 s and more: a start that waited for it would time the test out.
    const command = "echo first; sleep 100 & echo child $!; for i in 1 2 3 4 5 6 7 8 9 10; do echo tick $i; sleep 0.1; done; sleep 100";
    const start = await run(bashTool, { command, run_in_background: true }, ctx);
    expect(start.isError).toBeUndefined();
    expect(start.output).toStartWith("Started job1 (pid ");
    expect(start.output).toContain("first\n");
    expect(start.meta).toMatchObject({ jobId: "job1", state: "running" });
    const pid = Number(start.meta?.pid);
    const child = Number(/child (\d+)/.exec(start.output)?.[1]);
    expect(isAlive(pid) && isAlive(child)).toBe(true);

    const job = ctx.jobs.get("job1");
    await Bun.sleep(1_500); // the ticks are printed by then
    // What the start showed is not shown again: a read goes on where the last one ended.
    const next = await run(jobTool, { action: "read", id: "job1" }, ctx);
    expect(next.output).toStartWith("job1 is running");
    expect(next.output).toContain("tick 10");
    expect(next.output).not.toContain("first");
    const again = await run(jobTool, { action: "read", id: "job1" }, ctx);
    expect(again.output).toMatch(/^job1 is running \(\d+ s\); no new output \(\d+ characters in all\)\.$/);
    const all = await run(jobTool, { action: "read", id: "job1", offset: 0 }, ctx);
    expect(all.output).toContain(`output 0–${job?.total} of ${job?.total}:\nfirst\nchild`);
    const fromOffset = await run(jobTool, { action: "read", id: "job1", offset: 6 }, ctx);
    expect(fromOffset.output).toContain(`output 6–${job?.total} of ${job?.total}:\nchild`);
    expect(fromOffset.output).not.toContain("first");

    const list = await run(jobTool, { action: "list" }, ctx);
    expect(list.output).toMatch(/^job1 {2}running \d+ s, pid \d+ {2}\d+ characters, 0 unread {2}echo first;/);

    const stop = await run(jobTool, { action: "stop", id: "job1" }, ctx);
    expect(stop.output).toStartWith("Stopped job1 and every process it started.");
    expect(stop.meta).toMatchObject({ state: "stopped" });
    expect(await waitUntil(() => !isAlive(pid) && !isAlive(child), 4_000)).toBe(true);
    expect((await run(jobTool, { action: "list" }, ctx)).output).toContain("job1  was stopped");
  });

  test("a job that ends says its exit code; an unknown id and a missing one are errors the model reads", async () => {
    const { ctx } = context();
    const start = await run(bashTool, { command: "echo done; exit 3", run_in_background: true }, ctx);
    expect(start.output).toContain("job1 exited with code 3");
    expect(start.meta).toMatchObject({ state: "exited", exitCode: 3 });
    expect(await run(jobTool, { action: "read", id: "job9" }, ctx)).toMatchObject({ isError: true, output: "There is no job job9 in this session. Its jobs: job1." });
    expect(await run(jobTool, { action: "stop" }, ctx)).toMatchObject({ isError: true });
    expect((await run(jobTool, { action: "stop", id: "job1" }, ctx)).output).toStartWith("job1 had ended already: exited with code 3.");
  });

  test(`at most ${MAX_RUNNING_JOBS} run at once: the next is a tool error saying so; one ended makes room`, async () => {
    const { ctx } = context();
    for (let i = 0; i < MAX_RUNNING_JOBS; i++) {
      expect((await run(bashTool, { command: "sleep 100", run_in_background: true }, ctx)).isError).toBeUndefined();
    }
    const refused = await run(bashTool, { command: "sleep 100", run_in_background: true }, ctx);
    expect(refused.isError).toBe(true);
    expect(refused.output).toContain(`${MAX_RUNNING_JOBS} background jobs run already`);
    await run(jobTool, { action: "stop", id: "job3" }, ctx);
    expect((await run(bashTool, { command: "sleep 100", run_in_background: true }, ctx)).meta).toMatchObject({ jobId: "job9" });
  });

  test("the output kept is bounded: a read from the start says how much is no longer kept", async () => {
    const { ctx } = context(new Jobs({ running: 8, chars: 1_000 }));
    await run(bashTool, { command: "for i in $(seq 1 1000); do echo line-$i; done", run_in_background: true }, ctx);
    const job = ctx.jobs.get("job1");
    expect(await waitUntil(() => job?.state === "exited", 4_000)).toBe(true);
    await job?.done;
    const total = job?.total ?? 0;
    expect(total).toBeGreaterThan(5_000);
    const read = await run(jobTool, { action: "read", id: "job1", offset: 0 }, ctx);
    expect(read.output).toContain(`[… ${total - 1_000} characters from offset 0 on are no longer kept: a job keeps the last 1000 characters of its output …]`);
    expect(read.output).toContain(`output ${total - 1_000}–${total} of ${total}:`);
    expect(read.output).toEndWith("line-1000");
    expect(job?.read(0, 10_000).text.length).toBe(1_000);
  });

  test("each session's registry keeps its own jobs: its end is waited for apart from another's, and once they ended nothing of it stays hooked on the process's exit", async () => {
    const before = process.listenerCount("exit");
    const mine = new Jobs();
    const other = new Jobs();
    const { ctx } = context(mine);
    const { ctx: otherCtx } = context(other);
    await run(bashTool, { command: "sleep 100", run_in_background: true }, otherCtx);
    await run(bashTool, { command: "echo done", run_in_background: true }, ctx);
    await mine.ended();
    expect([mine.ending, other.ending]).toEqual([false, true]);
    expect(process.listenerCount("exit")).toBe(before + 1);
    await other.stopAll();
    expect(other.ending).toBe(false);
    expect(process.listenerCount("exit")).toBe(before);
  });

  test("stopping the registry (the session closing) stops every job, one ignoring SIGTERM too, and none starts after", async () => {
    const jobs = new Jobs();
    const { ctx } = context(jobs);
    const a = await run(bashTool, { command: "sleep 100", run_in_background: true }, ctx);
    const b = await run(bashTool, { command: "trap '' TERM; while true; do sleep 0.05; done", run_in_background: true }, ctx);
    const pids = [Number(a.meta?.pid), Number(b.meta?.pid)];
    expect(pids.every(isAlive)).toBe(true);
    await jobs.stopAll();
    expect(await waitUntil(() => !pids.some(isAlive), 4_000)).toBe(true);
    const late = await run(bashTool, { command: "sleep 100", run_in_background: true }, ctx);
    expect(late).toMatchObject({ isError: true });
    expect(late.output).toContain("the session is closing");
  });

  test("attack: a process that left the job's group with setsid is stopped with the job, and with the session", async () => {
    const jobs = new Jobs();
    const { ctx } = context(jobs);
    const pidOf = async (id: string) => {
      let pid = 0;
      await waitUntil(() => {
        pid = Number(/daemon (\d+)/.exec(jobs.get(id)?.read(0, 10_000).text ?? "")?.[1] ?? 0);
        return pid > 0;
      }, 4_000);
      return pid;
    };
    await run(bashTool, { command: "setsid sleep 300 & echo daemon $!; sleep 300", run_in_background: true }, ctx);
    await run(bashTool, { command: "setsid sleep 300 & echo daemon $!; sleep 300", run_in_background: true }, ctx);
    const [first, second] = [await pidOf("job1"), await pidOf("job2")];
    expect(isAlive(first) && isAlive(second)).toBe(true);
    try {
      await run(jobTool, { action: "stop", id: "job1" }, ctx);
      expect(await waitUntil(() => !isAlive(first), 4_000)).toBe(true);
      await jobs.stopAll();
      expect(await waitUntil(() => !isAlive(second), 4_000)).toBe(true);
    } finally {
      for (const pid of [first, second]) if (isAlive(pid)) process.kill(pid, "SIGKILL");
    }
  });

  test("attack: a job whose shell ends stops what it left running with setsid, as it does what it left in its group", async () => {
    const { ctx } = context();
    const start = await run(bashTool, { command: "setsid sleep 300 & echo daemon $!", run_in_background: true }, ctx);
    const pid = Number(/daemon (\d+)/.exec(start.output)?.[1] ?? 0);
    expect(pid).toBeGreaterThan(0);
    try {
      expect(await waitUntil(() => !isAlive(pid), 4_000)).toBe(true);
    } finally {
      if (isAlive(pid)) process.kill(pid, "SIGKILL");
    }
  });

  test("the titles name what runs and what is read", () => {
    const where = { root: "/p", cwd: "/p" };
    expect(bashTool.title({ command: "npm run dev", run_in_background: true }, where)).toBe("Start in the background: npm run dev");
    expect(jobTool.title({ action: "read", id: "job2" }, where)).toBe("Read the output of job2");
    expect(jobTool.title({ action: "stop", id: "job2" }, where)).toBe("Stop job2");
    expect(jobTool.title({ action: "list" }, where)).toBe("List the background jobs");
  });
});
