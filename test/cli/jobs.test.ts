import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { contentText, type ScriptedModel, startModel } from "../support/model.ts";
import { alive, sleepsWith, uniqueSleep, waitUntil } from "../support/procs.ts";
import { LEMBAS, outputOf, ROOT, projectSandbox, runLembas, type Sandbox } from "../support/run.ts";

let box: Sandbox;
let model: ScriptedModel;
let project: string;
beforeEach(async () => {
  model = await startModel();
  box = projectSandbox(model.url);
  project = join(box.dir, "project");
});
afterEach(async () => {
  await model.close();
  box.cleanup();
});

const background = (command: string) => step({ toolCalls: [{ name: "bash", arguments: { command, run_in_background: true } }] });

type JsonEvent = { type: string; name?: string; title?: string; meta?: Record<string, unknown>; output?: string; isError?: boolean };

describe.skipIf(!existsSync("/proc"))("background jobs through lembas run", () => {
  test("the model starts a job, reads its output a step later, and the job's processes are gone when the run ends", async () => {
    const marker = uniqueSleep();
    const command = `sleep ${marker} & echo server-up; while true; do echo tick; sleep 0.1; done`;
    model.push(
      step({ toolCalls: [{ name: "bash", arguments: { command, run_in_background: true } }] }),
      step({ toolCalls: [{ name: "job", arguments: { action: "list" } }] }),
      // Slow to answer: the job prints on meanwhile.
      { ...step({ toolCalls: [{ name: "job", arguments: { action: "read", id: "job1" } }] }), chunkDelayMs: 150 },
      step({ text: "The server runs." }),
    );
    const result = await runLembas(box, ["run", "--yes", "--format", "json", "start the server"], { cwd: project });
    expect(result.code).toBe(0);
    const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line) as JsonEvent);
    const ends = events.filter((e) => e.type === "tool_end");
    expect(ends.map((e) => [e.name, e.isError ?? false])).toEqual([
      ["bash", false],
      ["job", false],
      ["job", false],
    ]);
    expect(events.find((e) => e.type === "tool_start")?.title).toBe(`Start in the background: ${command}`);
    expect(ends[0]?.meta).toMatchObject({ jobId: "job1", state: "running" });
    expect(ends[0]?.output).toContain("server-up");
    expect(ends[1]?.output).toMatch(/^job1 {2}running/);
    // The read a step later has what the job printed meanwhile, and the model was sent it.
    expect(ends[2]?.output).toContain("tick\ntick");
    const last = model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
    expect(contentText(last.at(-1)?.content)).toContain("job1 is running");

    const pid = Number(ends[0]?.meta?.pid);
    expect(pid).toBeGreaterThan(0);
    // The run waited for its jobs to end before it exited.
    expect(alive(pid)).toBe(false);
    expect(sleepsWith(marker)).toEqual([]);
  });

  test("a process that exits at once, its sessions never closed, kills its jobs as it goes", async () => {
    const marker = uniqueSleep();
    const script = [
      `import { Jobs } from ${JSON.stringify(join(ROOT, "src/tools/jobs.ts"))};`,
      `const job = new Jobs().start({ command: "sleep ${marker}", cwd: "/", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });`,
      "await Bun.sleep(200);",
      "console.log(job.pid);",
      "process.exit(3);",
    ].join("\n");
    const file = join(box.dir, "exits.ts");
    writeFileSync(file, script);
    const proc = Bun.spawn([process.execPath, file], { stdout: "pipe", stderr: "inherit" });
    const pid = Number((await new Response(proc.stdout).text()).trim());
    expect(await proc.exited).toBe(3);
    expect(pid).toBeGreaterThan(0);
    // SIGKILL was sent as the process exited: it lands a moment later.
    expect(await waitUntil(() => !alive(pid) && sleepsWith(marker).length === 0, 2_000)).toBe(true);
  });

  test("a run ended by signals mid-turn (cancelled, then exit at once) leaves no job behind", async () => {
    const marker = uniqueSleep();
    model.push(background(`sleep ${marker}`), step({ text: "never", fail: "hang" }));
    const proc = Bun.spawn([...LEMBAS, "run", "--yes", "start it"], { cwd: project, env: box.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    await outputOf(proc.stderr).waitFor("running in the background");
    expect(sleepsWith(marker)).toHaveLength(1);
    proc.kill("SIGTERM");
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(130);
    expect(sleepsWith(marker)).toEqual([]);
  });

  for (const signal of ["SIGHUP", "SIGKILL"] as const) {
    test(`a run ended by ${signal} mid-command (its terminal closed, or killed) leaves neither its job nor its command running`, async () => {
      const [job, away, waited] = [uniqueSleep(), uniqueSleep(), uniqueSleep()];
      model.push(background(`sleep ${job}`), step({ toolCalls: [{ name: "bash", arguments: { command: `setsid sleep ${away} & sleep ${waited}` } }] }), step({ text: "never" }));
      const proc = Bun.spawn([...LEMBAS, "run", "--yes", "start it"], { cwd: project, env: box.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      const all = [job, away, waited];
      try {
        expect(await waitUntil(() => all.every((m) => sleepsWith(m).length === 1), 15_000)).toBe(true);
        proc.kill(signal);
        await proc.exited;
        if (signal === "SIGHUP") expect(proc.signalCode).toBeNull();
        expect(await waitUntil(() => all.every((m) => sleepsWith(m).length === 0), 15_000)).toBe(true);
      } finally {
        for (const pid of all.flatMap(sleepsWith)) process.kill(pid, "SIGKILL");
      }
    });
  }

  test("/undo of a turn that started a job says that what the job changed is not restored", async () => {
    writeFileSync(join(project, "notes.txt"), "the person's notes\n");
    model.push(
      step({ toolCalls: [{ name: "write", arguments: { path: "one.txt", content: "by the turn\n" } }] }),
      step({ toolCalls: [{ name: "bash", arguments: { command: "echo rewritten > notes.txt; sleep 30", run_in_background: true } }] }),
      // The turn ends (and its jobs with it) only once the job has written: a quick run could end first.
      { ...step({ text: "done" }), hold: waitUntil(() => readFileSync(join(project, "notes.txt"), "utf8") === "rewritten\n", 15_000) },
    );
    const first = await runLembas(box, ["run", "--yes", "write a file and start a job"], { cwd: project });
    expect(first.code).toBe(0);
    // The model was told with the job's start.
    const last = model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
    expect(contentText(last.at(-1)?.content)).toContain("What it changes is outside the turn's undo: /undo does not restore it.");
    const undo = await runLembas(box, ["run", "-c", "/undo"], { cwd: project });
    expect(undo.code).toBe(0);
    expect(undo.stderr).toContain(
      "lembas: undid the last turn (1 file restored): “write a file and start a job”. Not restored: (job1): `echo rewritten > notes.txt; sleep 30` ran in the background, outside the turn's undo: what it changed is not restored\n",
    );
    expect(existsSync(join(project, "one.txt"))).toBe(false);
    expect(readFileSync(join(project, "notes.txt"), "utf8")).toBe("rewritten\n");
  });

  test("lembas run's lines name the job's start and its reads", async () => {
    model.push(
      step({ toolCalls: [{ name: "bash", arguments: { command: "echo up; sleep 100", run_in_background: true } }] }),
      step({ toolCalls: [{ name: "job", arguments: { action: "stop", id: "job1" } }] }),
      step({ text: "stopped" }),
    );
    const result = await runLembas(box, ["run", "--yes", "start and stop"], { cwd: project });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("› Start in the background: echo up; sleep 100\n");
    expect(result.stderr).toMatch(/ {2}⎿ job1 running in the background \(pid \d+\)\n/);
    expect(result.stderr).toContain("› Stop job1\n");
  });

  test("in plan mode a background job is refused like any command, and nothing starts", async () => {
    const marker = uniqueSleep();
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: `sleep ${marker}`, run_in_background: true } }] }), step({ text: "refused then" }));
    const result = await runLembas(box, ["run", "--yes", "--mode", "plan", "--format", "json", "start it"], { cwd: project });
    expect(result.code).toBe(0);
    const steps = model.requests.filter((r) => isStep(r.body));
    // The tools are the same in every mode (the prompt cache holds); plan mode refuses the call.
    const offered = (steps[0]?.body.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);
    expect(offered).toContain("bash");
    expect(offered).toContain("job");
    expect(contentText(steps[1]?.body.messages?.at(-1)?.content)).toMatch(/plan mode/);
    expect(sleepsWith(marker)).toEqual([]);
  });
});
