// A step's tool calls through the real program (`lembas run --format json`) against the scripted
// model: read-only calls side by side, everything else in its place, and the loop guard.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { resolvePaths } from "../../src/config/paths.ts";
import { openDb } from "../../src/store/db.ts";
import { listMessages } from "../../src/store/messages.ts";
import { isStep, step } from "../support/engine.ts";
import { contentText, type ScriptedModel, startModel } from "../support/model.ts";
import { afterHeader, LEMBAS, outputOf, projectSandbox, runLembas, type Sandbox } from "../support/run.ts";

type Event = { type: string; callId?: string; name?: string; output?: string; isError?: boolean; stopReason?: string; reason?: string };

let box: Sandbox & { project: string };
let model: ScriptedModel;
let writers: Bun.Subprocess[] = [];
beforeEach(async () => {
  model = await startModel();
  box = projectSandbox(model.url);
  writers = [];
});
afterEach(async () => {
  for (const w of writers) w.kill("SIGKILL");
  await Promise.all(writers.map((w) => w.exited));
  await model.close();
  box.cleanup();
});

/**
 * A named pipe in the project whose writer waits until a reader opens it, then `delay` seconds,
 * then writes "hit" and closes: a grep of it takes that long from its own start, whatever ran before.
 */
function slowPipe(name: string, delay: string): string {
  const path = join(box.project, name);
  expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
  writers.push(Bun.spawn(["sh", "-c", 'exec 3>"$1"; sleep "$2"; echo hit >&3', "sh", path, delay], { stdout: "ignore", stderr: "ignore" }));
  return name;
}

const grepOf = (id: string, path: string) => ({ id, name: "grep", arguments: { pattern: "hit", path } });

async function runJson(prompt: string): Promise<Event[]> {
  const result = await runLembas(box, ["run", "--yes", "--format", "json", prompt], { cwd: box.project });
  expect(result.code).toBe(0);
  return result.stdout.trim().split("\n").map((l) => JSON.parse(l) as Event);
}

/** Where in the event list a call's tool_start or tool_end is. */
const at = (events: Event[], type: "tool_start" | "tool_end", callId: string) => {
  const i = events.findIndex((e) => e.type === type && e.callId === callId);
  expect(i).toBeGreaterThanOrEqual(0);
  return i;
};

const stepRequests = () => model.requests.filter((r) => isStep(r.body));
const toolMessages = (n: number) => (stepRequests()[n]?.body.messages ?? []).filter((m) => m.role === "tool");

describe("a step's tool calls", () => {
  test("three read-only calls of one step run at once; the model and the store get the results in the calls' order", async () => {
    const pipes = [slowPipe("one.fifo", "0.3"), slowPipe("two.fifo", "0.3"), slowPipe("three.fifo", "0.3")];
    model.push(step({ toolCalls: pipes.map((p, i) => grepOf(`c${i}`, p)) }), step({ text: "done" }));
    const events = await runJson("search the pipes");

    // Every call started before the first of them ended.
    const firstEnd = Math.min(...["c0", "c1", "c2"].map((id) => at(events, "tool_end", id)));
    for (const id of ["c0", "c1", "c2"]) expect(at(events, "tool_start", id)).toBeLessThan(firstEnd);
    for (const [i, id] of ["c0", "c1", "c2"].entries()) {
      expect(events[at(events, "tool_end", id)]).toMatchObject({ isError: false, output: expect.stringContaining(pipes[i] as string) });
    }

    const results = toolMessages(1);
    expect(results.map((m) => m.tool_call_id)).toEqual(["c0", "c1", "c2"]);
    expect(results.map((m) => contentText(m.content))).toEqual([expect.stringContaining("one.fifo"), expect.stringContaining("two.fifo"), expect.stringContaining("three.fifo")]);

    const db = openDb(resolvePaths(box.env).dbFile);
    try {
      const session = events.find((e) => e.type === "session") as { id: string } | undefined;
      const stored = listMessages(db, session?.id ?? "").filter((m) => m.role === "tool");
      expect(stored.map((m) => (m.body as { callId: string }).callId)).toEqual(["c0", "c1", "c2"]);
    } finally {
      db.close();
    }
  });

  test("a write between reads waits for the reads before it, and the reads after it wait for the write", async () => {
    const [a, b, c] = [slowPipe("a.fifo", "0.2"), slowPipe("b.fifo", "0.2"), slowPipe("c.fifo", "0.2")];
    model.push(
      step({
        toolCalls: [
          grepOf("r1", a as string),
          grepOf("r2", b as string),
          { id: "w", name: "write", arguments: { path: "note.txt", content: "written between\n" } },
          { id: "r3", name: "read", arguments: { path: "note.txt" } },
          grepOf("r4", c as string),
        ],
      }),
      step({ text: "done" }),
    );
    const events = await runJson("reads and a write");

    expect(at(events, "tool_start", "r2")).toBeLessThan(at(events, "tool_end", "r1"));
    expect(at(events, "tool_start", "w")).toBeGreaterThan(Math.max(at(events, "tool_end", "r1"), at(events, "tool_end", "r2")));
    expect(at(events, "tool_start", "r3")).toBeGreaterThan(at(events, "tool_end", "w"));
    expect(at(events, "tool_start", "r4")).toBeLessThan(at(events, "tool_end", "r3"));
    expect(events[at(events, "tool_end", "r3")]?.output).toContain("written between");
    expect(toolMessages(1).map((m) => m.tool_call_id)).toEqual(["r1", "r2", "w", "r3", "r4"]);
  });

  test("lembas run's lines show each result under its own call's title when the calls ran at once", async () => {
    // A read that fails at once beside a grep that waits: the grep's title is printed while the
    // read runs, so the read's failure must name its own call again.
    const pipe = slowPipe("slow.fifo", "0.5");
    model.push(step({ toolCalls: [{ id: "a", name: "read", arguments: { path: "missing-a.txt" } }, grepOf("b", pipe)] }), step({ text: "done" }));
    const result = await runLembas(box, ["run", "--yes", "read both"], { cwd: box.project });
    expect(result.code).toBe(0);
    const lines = afterHeader(result.stderr).split("\n");
    expect(lines[0]).toBe("› Read missing-a.txt");
    expect(lines.filter((l) => l.startsWith("› Search")).length).toBeGreaterThan(0);
    const failure = lines.findIndex((l) => l.startsWith("  ⎿") && l.includes("missing-a.txt"));
    expect(failure).toBeGreaterThan(0);
    expect(lines[failure - 1]).toBe("› Read missing-a.txt");
  });

  test("cancelling the turn stops every read that runs", async () => {
    // Writers that never write: the greps wait until they are stopped.
    const pipes = [slowPipe("x.fifo", "600"), slowPipe("y.fifo", "600")];
    model.push(step({ toolCalls: pipes.map((p, i) => grepOf(`k${i}`, p)) }), step({ text: "never asked" }));
    const proc = Bun.spawn([...LEMBAS, "run", "--yes", "--format", "json", "wait forever"], {
      cwd: box.project,
      env: box.env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "ignore",
    });
    try {
      const out = outputOf(proc.stdout);
      await out.waitFor('"type":"tool_start","callId":"k1"');
      proc.kill("SIGINT");
      const code = await proc.exited;
      await out.waitFor('"type":"done"').catch(() => {});
      const events = out.seen().trim().split("\n").map((l) => JSON.parse(l) as Event);
      expect(code).toBe(130);
      expect(events.filter((e) => e.type === "tool_end").map((e) => e.callId).sort()).toEqual(["k0", "k1"]);
      expect(events.find((e) => e.type === "done")).toMatchObject({ stopReason: "cancelled" });
      expect(stepRequests()).toHaveLength(1);
    } finally {
      proc.kill("SIGKILL");
    }
  });
});

describe("the loop guard", () => {
  const missing = { path: "missing.txt" };
  test("the third identical failing call in a row is not run, and the model is told to change its approach", async () => {
    model.push(
      step({ toolCalls: [{ id: "f1", name: "read", arguments: missing }] }),
      step({ toolCalls: [{ id: "f2", name: "read", arguments: ' { "path" : "missing.txt" } ' }] }),
      step({ toolCalls: [{ id: "f3", name: "read", arguments: missing }] }),
      step({ text: "I will look elsewhere." }),
    );
    const events = await runJson("read it");
    expect(events.filter((e) => e.type === "tool_start").map((e) => e.callId)).toEqual(["f1", "f2"]);
    expect(events.find((e) => e.type === "tool_denied")).toMatchObject({ callId: "f3", name: "read" });
    const told = toolMessages(3).at(-1);
    expect(told?.tool_call_id).toBe("f3");
    expect(contentText(told?.content)).toContain("has failed 2 times in a row");
    expect(contentText(told?.content)).toContain("Change your approach");
  });

  test("identical failing calls in one step count in their order: the third is stopped", async () => {
    model.push(
      step({ toolCalls: ["s1", "s2", "s3"].map((id) => ({ id, name: "read", arguments: missing })) }),
      step({ text: "ok" }),
    );
    const events = await runJson("read it thrice");
    expect(events.filter((e) => e.type === "tool_start").map((e) => e.callId)).toEqual(["s1", "s2"]);
    expect(toolMessages(1).map((m) => m.tool_call_id)).toEqual(["s1", "s2", "s3"]);
    expect(contentText(toolMessages(1)[2]?.content)).toContain("Change your approach");
  });

  test("a model that keeps sending the stopped call: after two more stopped repeats the turn ends, saying why", async () => {
    // A model stuck on one call: it would send it for the whole step limit.
    for (let i = 0; i < 40; i++) model.push(step({ toolCalls: [{ id: `r${i}`, name: "read", arguments: missing }] }));
    const result = await runLembas(box, ["run", "--yes", "--format", "json", "read it"], { cwd: box.project });
    const events = result.stdout.trim().split("\n").map((l) => JSON.parse(l) as Event & { message?: string; level?: string });
    expect(events.filter((e) => e.type === "tool_start").map((e) => e.callId)).toEqual(["r0", "r1"]);
    expect(events.filter((e) => e.type === "tool_denied").map((e) => e.callId)).toEqual(["r2", "r3", "r4"]);
    expect(stepRequests()).toHaveLength(5);
    const notice = events.find((e) => e.type === "notice" && e.level === "warn");
    expect(notice?.message).toBe(
      "the turn stopped: the model sent the same read call 5 times in a row; it failed 2 times, and 3 more were not run although the model was told each time to change its approach. Say what to do differently, or try another model",
    );
    expect(events.find((e) => e.type === "done")).toMatchObject({ stopReason: "max_turn_requests" });
    expect(result.code).toBe(1);
  });

  test("stopped repeats in one step: the turn ends at the third, and the calls after it are not run", async () => {
    model.push(step({ toolCalls: ["s1", "s2", "s3", "s4", "s5", "s6"].map((id) => ({ id, name: "read", arguments: missing })) }), step({ text: "never asked" }));
    const result = await runLembas(box, ["run", "--yes", "--format", "json", "read it six times"], { cwd: box.project });
    const events = result.stdout.trim().split("\n").map((l) => JSON.parse(l) as Event);
    expect(events.find((e) => e.type === "done")).toMatchObject({ stopReason: "max_turn_requests" });
    expect(stepRequests()).toHaveLength(1);
    const db = openDb(resolvePaths(box.env).dbFile);
    try {
      const session = events.find((e) => e.type === "session") as { id: string } | undefined;
      const stored = listMessages(db, session?.id ?? "").filter((m) => m.role === "tool").map((m) => m.body as { callId: string; output: string });
      expect(stored.map((r) => r.callId)).toEqual(["s1", "s2", "s3", "s4", "s5", "s6"]);
      expect(stored[5]?.output).toContain("Not run: the turn was stopped");
    } finally {
      db.close();
    }
  });

  test("a call between the failures, or other arguments, starts the count again", async () => {
    model.push(
      step({ toolCalls: [{ id: "a1", name: "read", arguments: missing }] }),
      step({ toolCalls: [{ id: "a2", name: "read", arguments: missing }] }),
      step({ toolCalls: [{ id: "b", name: "list", arguments: {} }] }),
      step({ toolCalls: [{ id: "a3", name: "read", arguments: missing }] }),
      step({ toolCalls: [{ id: "a4", name: "read", arguments: { path: "missing.txt", offset: 2 } }] }),
      step({ text: "ok" }),
    );
    const events = await runJson("read it again");
    expect(events.filter((e) => e.type === "tool_start").map((e) => e.callId)).toEqual(["a1", "a2", "b", "a3", "a4"]);
    expect(events.some((e) => e.type === "tool_denied")).toBe(false);
  });
});
