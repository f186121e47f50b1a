import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { bashTool } from "../../src/tools/bash.ts";
import { cleanupTempDirs, makeContext, run } from "./context.ts";

afterAll(cleanupTempDirs);

/** Alive and not a zombie (a container's PID 1 may never reap the orphans it inherits). */
function isAlive(pid: number): boolean {
  if (existsSync("/proc")) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      return state !== "Z" && state !== "X";
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(check: () => boolean, ms = 2_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await Bun.sleep(20);
  }
  return check();
}

describe("bash", () => {
  test("stdout and stderr come together; a non-zero exit code is said and in meta", async () => {
    const { ctx, rec } = makeContext();
    const result = await run(bashTool, { command: "echo out; echo err >&2; exit 3" }, ctx);
    expect(result.isError).toBeUndefined();
    expect(result.output).toBe("out\nerr\n\nExit code 3.");
    expect(result.meta).toEqual({ exitCode: 3 });
    expect(rec.commands).toBe(1);
  });

  test("runs in cwd with stdin closed", async () => {
    const { ctx } = makeContext();
    const result = await run(bashTool, { command: "pwd; cat; echo done" }, ctx);
    expect(result.output).toBe(`${ctx.cwd}\ndone`);
    expect(result.meta).toEqual({ exitCode: 0 });
  });

  test("attack: at its timeout a command's processes stop, one that left its group with setsid too", async () => {
    const { ctx } = makeContext();
    const result = await run(bashTool, { command: "setsid sleep 300 & echo daemon $!; sleep 300", timeout: 300 }, ctx);
    const pid = Number(/daemon (\d+)/.exec(result.output)?.[1] ?? 0);
    expect(pid).toBeGreaterThan(0);
    try {
      expect(await waitUntil(() => !isAlive(pid))).toBe(true);
    } finally {
      if (isAlive(pid)) process.kill(pid, "SIGKILL");
    }
  });

  test("a command that never ends stops at its timeout", async () => {
    const { ctx } = makeContext();
    // Not stopped at its 300 ms, the command would time the test out.
    const result = await run(bashTool, { command: "echo started; sleep 1000", timeout: 300 }, ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toBe("started\n\nThe command timed out after 0.3 s: it and every process it started were stopped.");
    expect(result.meta).toMatchObject({ stopped: "timeout" });
  });

  test("a command ignoring SIGTERM is killed after the grace period", async () => {
    const { ctx } = makeContext();
    // It never ends by itself: without the SIGKILL after the grace it would time the test out.
    const result = await run(bashTool, { command: "trap '' TERM; while true; do sleep 0.05; done", timeout: 200 }, ctx);
    expect(result.output).toContain("timed out after 0.2 s");
  });

  test("cancelling kills the whole process group, grandchildren too", async () => {
    const controller = new AbortController();
    const { ctx, rec } = makeContext({ signal: controller.signal });
    const command = "sleep 1000 & echo $!; bash -c 'sleep 1000 & echo $!; wait' & wait";
    const pending = run(bashTool, { command }, ctx);
    const pids = () => rec.progress.join("").split("\n").filter(Boolean).map(Number);
    expect(await waitUntil(() => pids().length === 2)).toBe(true);
    expect(pids().every(isAlive)).toBe(true);
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.output).toContain("The command was cancelled: it and every process it started were stopped.");
    expect(await waitUntil(() => !pids().some(isAlive))).toBe(true);
  });

  test("long output keeps its head and tail within the cap", async () => {
    const { ctx } = makeContext();
    const result = await run(bashTool, { command: "seq 1 200000" }, ctx);
    expect(result.output.length).toBeLessThan(31_000);
    expect(result.output).toStartWith("1\n2\n3\n");
    expect(result.output).toEndWith("199999\n200000");
    expect(result.output).toMatch(/\[… \d+ characters left out …\]/);
  });

  test("output streams through progress in batches, all of it", async () => {
    const { ctx, rec } = makeContext();
    const result = await run(bashTool, { command: "for i in 1 2 3; do echo line $i; sleep 0.15; done" }, ctx);
    expect(rec.progress.join("")).toBe("line 1\nline 2\nline 3\n");
    expect(rec.progress.length).toBeGreaterThanOrEqual(2);
    expect(result.output).toBe("line 1\nline 2\nline 3");
  });

  test("what a command leaves running in the background (sleep 100 &) is stopped when it ends, and said", async () => {
    const { ctx } = makeContext();
    // A result that waited for the 100 s sleep would time the test out.
    const result = await run(bashTool, { command: "sleep 100 & echo $!" }, ctx);
    const pid = Number(result.output.split("\n")[0]);
    expect(result.output).toContain("Processes it left running in the background were stopped when it ended: start a server or a watcher with run_in_background: true instead.");
    expect(await waitUntil(() => !isAlive(pid))).toBe(true);
  });

  test("attack: what a command left running out of its group (setsid) is stopped when it ends, and said", async () => {
    const { ctx } = makeContext();
    const result = await run(bashTool, { command: "setsid sleep 300 >/dev/null 2>&1 & echo daemon $!" }, ctx);
    const pid = Number(/daemon (\d+)/.exec(result.output)?.[1] ?? 0);
    expect(pid).toBeGreaterThan(0);
    try {
      expect(result.output).toContain("Processes it left running in the background were stopped when it ended");
      expect(await waitUntil(() => !isAlive(pid))).toBe(true);
    } finally {
      if (isAlive(pid)) process.kill(pid, "SIGKILL");
    }
  });

  test("a background process that closed its output is stopped all the same", async () => {
    const { ctx } = makeContext();
    const result = await run(bashTool, { command: "sleep 100 >/dev/null 2>&1 & echo $!" }, ctx);
    const pid = Number(result.output.split("\n")[0]);
    expect(await waitUntil(() => !isAlive(pid))).toBe(true);
  });

  test("no output and an aborted signal before start", async () => {
    const { ctx } = makeContext();
    expect((await run(bashTool, { command: "true" }, ctx)).output).toBe("(no output)");
    const controller = new AbortController();
    controller.abort();
    const aborted = makeContext({ signal: controller.signal });
    expect(await run(bashTool, { command: "echo x" }, aborted.ctx)).toMatchObject({ isError: true });
  });

  test("a missing working directory is an error result", async () => {
    const { ctx } = makeContext({ cwd: "/nonexistent/dir/for/lembas" });
    const result = await run(bashTool, { command: "echo x" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toStartWith("The command could not be run:");
  });

  test("the title is the command, never the model's description of it", () => {
    const where = { root: "/p", cwd: "/p" };
    expect(bashTool.title({ command: "npm test" }, where)).toBe("Run npm test");
    expect(bashTool.title({ command: "rm -rf ~", description: "Run the tests" }, where)).toBe("Run rm -rf ~");
    expect(bashTool.paths?.({ command: "rm -rf x" }, where)).toEqual([]);
  });
});
