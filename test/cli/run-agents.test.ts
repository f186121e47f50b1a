import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type ChatRequest, contentText, type Reply, type ScriptedModel } from "../support/model.ts";
import { modelProjectEach, type ProjectSandbox, runInProject, runLembas } from "../support/run.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
modelProjectEach((made) => {
  ({ box, model } = made);
  model.setModels([{ id: "test-model" }, { id: "fast-model" }]);
});

const run = (args: string[]) => runInProject(box, args);
const systemOf = (body: ChatRequest | undefined) => contentText(body?.messages?.[0]?.content);
const toolNames = (body: ChatRequest | undefined) => (body?.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);
const toolResults = (body: ChatRequest | undefined) => (body?.messages ?? []).filter((m) => m.role === "tool").map((m) => contentText(m.content));
const taskSpec = (body: ChatRequest | undefined) =>
  (body?.tools ?? []).map((t) => (t as { function: { name: string; description: string; parameters: { properties: Record<string, unknown> } } }).function).find((f) => f.name === "task");

/** Whether a request is the agent NAME's (its system prompt says it is that agent). */
const isAgent = (name: string) => (body: ChatRequest) => systemOf(body).includes(`You work as the agent "${name}"`);
/** Whether a request is the session's own step (tools offered, no agent's). */
const isOwn = (body: ChatRequest) => (body.tools?.length ?? 0) > 0 && !systemOf(body).includes("You work as the agent") && !systemOf(body).includes("You are a helper");
/** The agent NAME's request after it made `done` assistant messages. */
const agentStep = (name: string, done: number, reply: Reply): Reply => ({
  ...reply,
  match: (body) => isAgent(name)(body) && (body.messages ?? []).filter((m) => m.role === "assistant").length === done,
});
const ownStep = (reply: Reply): Reply => ({ ...reply, match: isOwn });
const task = (id: string, agent: string, prompt: string) => ({ id, name: "task", arguments: { description: `ask ${agent}`, prompt, agent } });

/** Writes a file, its folders made. */
function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

describe("custom agents", () => {
  test("an agent with its own model and tools: its requests name that model and carry only its tools; the task tool lists it", async () => {
    put(
      join(box.project, ".claude", "agents", "finder.md"),
      "---\nname: finder\ndescription: Finds where things are defined\ntools: Read, Grep\nmodel: test/fast-model\neffort: high\ncolor: blue\n---\nYou find definitions. FINDER-PROMPT.\n",
    );
    model.push(
      ownStep({ toolCalls: [task("t1", "finder", "Where is needle?")] }),
      agentStep("finder", 0, { toolCalls: [{ id: "g1", name: "grep", arguments: { pattern: "needle" } }] }),
      agentStep("finder", 1, { text: "needle is nowhere." }),
      ownStep({ text: "done" }),
    );
    const result = await run(["find it"]);
    expect(result.code).toBe(0);
    const own = model.requests.filter((r) => isOwn(r.body)).map((r) => r.body);
    const spec = taskSpec(own[0]);
    expect(spec?.description).toContain("- finder: Finds where things are defined\n");
    expect(Object.keys(spec?.parameters.properties ?? {})).toEqual(["description", "prompt", "agent"]);
    const helper = model.requests.filter((r) => isAgent("finder")(r.body)).map((r) => r.body);
    expect(helper).toHaveLength(2);
    for (const body of helper) {
      expect(body.model).toBe("fast-model");
      expect(body.reasoning_effort).toBe("high");
      expect(toolNames(body)).toEqual(["read", "grep"]);
      expect(systemOf(body)).toStartWith("You find definitions. FINDER-PROMPT.");
    }
    expect(own[0]?.model).toBe("test-model");
    expect(toolResults(own[1])).toEqual(["needle is nowhere."]);
    // Its calls are shown nested under the task call.
    expect(result.stderr).toContain("› ");
  });

  test("a session without agents sends the task tool it sent before", async () => {
    model.push(ownStep({ text: "hi" }));
    expect((await run(["hello"])).code).toBe(0);
    const spec = taskSpec(model.requests.find((r) => isOwn(r.body))?.body);
    expect(Object.keys(spec?.parameters.properties ?? {})).toEqual(["description", "prompt"]);
    expect(spec?.description).not.toContain("Agents the person wrote");
  });

  test("two read-only agents of one step run at once: each's first request comes before either's second", async () => {
    const agent = (name: string) => `---\nname: ${name}\ndescription: Looks into ${name}\ntools:\n  - Glob\n  - Read\n---\nYou look.\n`;
    put(join(box.project, ".agent", "agents", "alpha.md"), agent("alpha"));
    put(join(box.configDir, "agents", "beta.md"), agent("beta"));
    // A slow first answer each: had they run one after the other, alpha's second request would come before beta's first.
    const slow = { toolCalls: [{ id: "gl", name: "glob", arguments: { pattern: "*.md" } }], chunkDelayMs: 150 };
    model.push(
      ownStep({ toolCalls: [task("t1", "alpha", "Look at alpha"), task("t2", "beta", "Look at beta")] }),
      agentStep("alpha", 0, slow),
      agentStep("beta", 0, slow),
      agentStep("alpha", 1, { text: "alpha seen" }),
      agentStep("beta", 1, { text: "beta seen" }),
      ownStep({ text: "done" }),
    );
    const result = await run(["--mode", "plan", "look"]);
    expect(result.code).toBe(0);
    const order = model.requests
      .filter((r) => isAgent("alpha")(r.body) || isAgent("beta")(r.body))
      .map((r) => `${isAgent("alpha")(r.body) ? "alpha" : "beta"}${(r.body.messages ?? []).filter((m) => m.role === "assistant").length}`);
    expect(order.slice(0, 2).sort()).toEqual(["alpha0", "beta0"]);
    expect(order.slice(2).sort()).toEqual(["alpha1", "beta1"]);
    const own = model.requests.filter((r) => isOwn(r.body)).map((r) => r.body);
    expect(toolResults(own[1])).toEqual(["alpha seen", "beta seen"]);
  });

  test("at most 4 helpers of one step run at once: a fifth starts when those have ended", async () => {
    put(join(box.project, ".agent", "agents", "alpha.md"), "---\nname: alpha\ndescription: Looks\ntools: Glob\n---\nYou look.\n");
    const asked = (body: ChatRequest) => contentText(body.messages?.[1]?.content);
    const helperOf = (prompt: string, done: number, reply: Reply): Reply => ({
      ...reply,
      match: (body) => isAgent("alpha")(body) && asked(body) === prompt && (body.messages ?? []).filter((m) => m.role === "assistant").length === done,
    });
    const prompts = ["p1", "p2", "p3", "p4", "p5"];
    model.push(ownStep({ toolCalls: prompts.map((p, i) => task(`t${i}`, "alpha", p)) }));
    for (const p of prompts.slice(0, 4)) model.push(helperOf(p, 0, { toolCalls: [{ id: `g${p}`, name: "glob", arguments: { pattern: "*" } }], chunkDelayMs: 100 }), helperOf(p, 1, { text: `${p} done` }));
    model.push(helperOf("p5", 0, { text: "p5 done" }), ownStep({ text: "done" }));
    expect((await run(["--mode", "plan", "look"])).code).toBe(0);
    const order = model.requests.filter((r) => isAgent("alpha")(r.body)).map((r) => `${asked(r.body)}:${(r.body.messages ?? []).filter((m) => m.role === "assistant").length}`);
    expect(order).toHaveLength(9);
    // The fifth's first request comes after every second request of the four before it.
    expect(order.at(-1)).toBe("p5:0");
    expect(toolResults(model.requests.filter((r) => isOwn(r.body)).at(-1)?.body)).toEqual(prompts.map((p) => `${p} done`));
  });

  test("a writing agent's edit is part of the turn: /undo of the turn takes it back", async () => {
    put(join(box.project, ".agent", "agents", "scribe.md"), "---\nname: scribe\ndescription: Writes notes\ntools: Write, Read\n---\nYou write notes.\n");
    model.push(
      ownStep({ toolCalls: [task("t1", "scribe", "Write notes.txt")] }),
      agentStep("scribe", 0, { toolCalls: [{ id: "w1", name: "write", arguments: { path: "notes.txt", content: "by the agent\n" } }] }),
      agentStep("scribe", 1, { text: "wrote notes.txt" }),
      ownStep({ text: "done" }),
    );
    const first = await run(["--mode", "edit", "write notes"]);
    expect(first.code).toBe(0);
    expect(existsSync(join(box.project, "notes.txt"))).toBe(true);
    const spec = taskSpec(model.requests.find((r) => isOwn(r.body))?.body);
    expect(spec?.description).toContain("- scribe: Writes notes (may change files)");
    const undo = await run(["-c", "/undo"]);
    expect(undo.code).toBe(0);
    expect(undo.stderr).toContain("1 file restored");
    expect(existsSync(join(box.project, "notes.txt"))).toBe(false);
  });

  test("a writing agent's edit prints its diff under its call, as the session's own edits do", async () => {
    put(join(box.project, ".agent", "agents", "scribe.md"), "---\nname: scribe\ndescription: Writes notes\ntools: Write, Read\n---\nYou write notes.\n");
    writeFileSync(join(box.project, "notes.txt"), "old line\n");
    model.push(
      ownStep({ toolCalls: [task("t1", "scribe", "Rewrite notes.txt")] }),
      agentStep("scribe", 0, { toolCalls: [{ id: "r1", name: "read", arguments: { path: "notes.txt" } }] }),
      agentStep("scribe", 1, { toolCalls: [{ id: "w1", name: "write", arguments: { path: "notes.txt", content: "by the agent\n" } }] }),
      agentStep("scribe", 2, { text: "wrote notes.txt" }),
      ownStep({ text: "done" }),
    );
    const result = await run(["--mode", "edit", "write notes"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(["  › Write notes.txt", "      ⎿ notes.txt: +1 −1", "        @@ -1,1 +1,1 @@", "        -old line", "        +by the agent"].join("\n"));
  });

  test("a writing agent runs alone: a read-only helper of the same step starts after it ended", async () => {
    put(join(box.project, ".agent", "agents", "scribe.md"), "---\nname: scribe\ndescription: Writes notes\ntools: Write, Read\n---\nYou write notes.\n");
    put(join(box.project, ".agent", "agents", "alpha.md"), "---\nname: alpha\ndescription: Looks\ntools: Glob\n---\nYou look.\n");
    model.push(
      ownStep({ toolCalls: [task("t1", "alpha", "Look"), task("t2", "scribe", "Write notes.txt")] }),
      agentStep("alpha", 0, { toolCalls: [{ id: "g1", name: "glob", arguments: { pattern: "*" } }], chunkDelayMs: 150 }),
      agentStep("alpha", 1, { text: "looked" }),
      agentStep("scribe", 0, { toolCalls: [{ id: "w1", name: "write", arguments: { path: "notes.txt", content: "x\n" } }] }),
      agentStep("scribe", 1, { text: "wrote" }),
      ownStep({ text: "done" }),
    );
    expect((await run(["--mode", "edit", "go"])).code).toBe(0);
    const order = model.requests
      .filter((r) => isAgent("alpha")(r.body) || isAgent("scribe")(r.body))
      .map((r) => `${isAgent("alpha")(r.body) ? "alpha" : "scribe"}${(r.body.messages ?? []).filter((m) => m.role === "assistant").length}`);
    expect(order).toEqual(["alpha0", "alpha1", "scribe0", "scribe1"]);
  });

  test("a writing agent's command asks the person as the session's would: refused where nobody can answer, run with --yes", async () => {
    put(join(box.project, ".agent", "agents", "runner.md"), "---\nname: runner\ndescription: Runs commands\ntools: Bash\n---\nYou run commands.\n");
    const turn = () =>
      model.push(
        ownStep({ toolCalls: [task("t1", "runner", "Make made.txt")] }),
        agentStep("runner", 0, { toolCalls: [{ id: "b1", name: "bash", arguments: { command: "touch made.txt" } }] }),
        agentStep("runner", 1, { text: "ran it" }),
        ownStep({ text: "done" }),
      );
    turn();
    expect((await run(["--mode", "manual", "make it"])).code).toBe(0);
    const asked = model.requests.filter((r) => isAgent("runner")(r.body)).at(-1)?.body;
    expect(toolNames(asked)).toEqual(["bash"]);
    expect(toolResults(asked)[0]).toContain("not interactive: run with --yes to approve");
    expect(existsSync(join(box.project, "made.txt"))).toBe(false);
    turn();
    expect((await run(["--mode", "manual", "--yes", "make it"])).code).toBe(0);
    expect(existsSync(join(box.project, "made.txt"))).toBe(true);
  });

  test("in plan mode a writing agent gets only its tools that read; the task tool lists it as in any mode", async () => {
    put(join(box.project, ".agent", "agents", "scribe.md"), "---\nname: scribe\ndescription: Writes notes\ntools: Write, Read\n---\nYou write notes.\n");
    model.push(ownStep({ toolCalls: [task("t1", "scribe", "Write notes.txt")] }), agentStep("scribe", 0, { text: "I cannot write" }), ownStep({ text: "done" }));
    expect((await run(["--mode", "plan", "write notes"])).code).toBe(0);
    expect(toolNames(model.requests.find((r) => isAgent("scribe")(r.body))?.body)).toEqual(["read"]);
    // The task tool says the same in every mode: the tools offered stay the same all session.
    expect(taskSpec(model.requests.find((r) => isOwn(r.body))?.body)?.description).toContain("- scribe: Writes notes (may change files)");
  });

  test("a bad agent file is told to the model, and lembas doctor names the file", async () => {
    const nameless = join(box.project, ".agent", "agents", "vague.md");
    const typo = join(box.project, ".agent", "agents", "typo.md");
    const far = join(box.configDir, "agents", "far.md");
    put(nameless, "---\nname: vague\ntools: Read\n---\nYou do things.\n");
    put(typo, "---\nname: typo\ndescription: Greps\ntools: Read, Grepp\n---\nYou grep.\n");
    put(far, "---\nname: far\ndescription: Uses a model nobody serves\nmodel: nowhere/nothing\n---\nYou think.\n");
    model.push(ownStep({ toolCalls: [task("t1", "vague", "x"), task("t2", "typo", "y"), task("t3", "far", "z"), task("t4", "nobody", "w")] }), ownStep({ text: "done" }));
    expect((await run(["go"])).code).toBe(0);
    const own = model.requests.filter((r) => isOwn(r.body)).map((r) => r.body);
    expect(taskSpec(own[0])?.description).toContain("- vague: (no description: it cannot run)");
    const [vague, bad, unreachable, missing] = toolResults(own[1]);
    expect(vague).toContain(`The agent "vague" (${nameless}) cannot run: it has no description`);
    expect(bad).toContain(`The agent "typo" (${typo}) cannot run: it names a tool that does not exist: Grepp`);
    expect(unreachable).toContain(`The agent "far" (${far}) cannot run: its model "nowhere/nothing" cannot be reached`);
    expect(missing).toBe('There is no agent named "nobody". The agents are: far, typo, vague.');
    const doctor = await runLembas(box, ["doctor"], { cwd: box.project });
    expect(doctor.stdout + doctor.stderr).toContain(nameless);
    expect(doctor.stdout + doctor.stderr).toContain(typo);
    expect(doctor.stdout + doctor.stderr).toContain(far);
  });

  test("a Claude Code agent file without a tools line gets every tool the mode allows, less its disallowedTools", async () => {
    put(join(box.project, ".claude", "agents", "tester.md"), "---\nname: tester\ndescription: Runs the tests and fixes them\ndisallowedTools: Edit, MultiEdit\n---\nYou fix tests.\n");
    model.push(
      ownStep({ toolCalls: [task("t1", "tester", "Write notes.txt")] }),
      agentStep("tester", 0, { toolCalls: [{ id: "w1", name: "write", arguments: { path: "notes.txt", content: "fixed\n" } }] }),
      agentStep("tester", 1, { text: "wrote notes.txt" }),
      ownStep({ text: "done" }),
    );
    expect((await run(["--mode", "auto", "fix"])).code).toBe(0);
    const first = model.requests.find((r) => isAgent("tester")(r.body))?.body;
    expect(toolNames(first)).toEqual(["read", "write", "bash", "job", "grep", "glob", "list", "lsp", "fetch", "skill"]);
    expect(existsSync(join(box.project, "notes.txt"))).toBe(true);
    // In plan mode the same file gets only the tools that read (job stops jobs: not one of them).
    model.push(ownStep({ toolCalls: [task("t1", "tester", "Look")] }), agentStep("tester", 0, { text: "looked" }), ownStep({ text: "done" }));
    expect((await run(["--mode", "plan", "look"])).code).toBe(0);
    expect(toolNames(model.requests.filter((r) => isAgent("tester")(r.body)).at(-1)?.body)).toEqual(["read", "grep", "glob", "list", "lsp", "fetch", "skill"]);
  });

  test("Claude Code's tool names run: BashOutput and Skill are lembas's job and skill, WebSearch is left out and the agent and doctor say so", async () => {
    const file = join(box.project, ".claude", "agents", "finder.md");
    put(file, "---\nname: finder\ndescription: Finds things\ntools: Read, Grep, WebSearch, BashOutput, Skill\n---\nYou find.\n");
    model.push(ownStep({ toolCalls: [task("t1", "finder", "Find")] }), agentStep("finder", 0, { text: "found" }), ownStep({ text: "done" }));
    expect((await run(["--mode", "auto", "find"])).code).toBe(0);
    const first = model.requests.find((r) => isAgent("finder")(r.body))?.body;
    expect(toolNames(first)).toEqual(["read", "job", "grep", "skill"]);
    expect(systemOf(first)).toContain("WebSearch (Claude Code's; lembas has no such tool)");
    expect(toolResults(model.requests.filter((r) => isOwn(r.body)).at(-1)?.body)).toEqual(["found"]);
    const doctor = await runLembas(box, ["doctor"], { cwd: box.project });
    const said = doctor.stdout + doctor.stderr;
    expect(said).toContain(`ok   agent finder: ${file} runs without WebSearch (Claude Code's; lembas has no such tool)`);
    expect(said).not.toContain("cannot run");
  });

  test("doctor judges an agent's model as a session resolves it: a bare served id passes, a model nobody serves names the file", async () => {
    const bare = join(box.project, ".agent", "agents", "quick.md");
    const lost = join(box.project, ".agent", "agents", "lost.md");
    put(bare, "---\nname: quick\ndescription: Answers fast\nmodel: fast-model\n---\nYou answer.\n");
    put(lost, "---\nname: lost\ndescription: Uses a model nobody serves\nmodel: no-such-model\n---\nYou answer.\n");
    const doctor = await runLembas(box, ["doctor"], { cwd: box.project });
    const said = doctor.stdout + doctor.stderr;
    expect(said).toContain("ok   agents: quick");
    expect(said).not.toContain(`${bare} cannot run`);
    expect(said).toContain(`fix  agent lost: ${lost} cannot run: its model "no-such-model" cannot be reached`);
    // And the session runs it with that model, as doctor said it would.
    model.push(ownStep({ toolCalls: [task("t1", "quick", "Answer")] }), agentStep("quick", 0, { text: "answered" }), ownStep({ text: "done" }));
    expect((await run(["answer"])).code).toBe(0);
    expect(model.requests.find((r) => isAgent("quick")(r.body))?.body.model).toBe("fast-model");
  });
});
