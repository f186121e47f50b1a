import { afterEach, describe, expect, test } from "bun:test";
import { z } from "zod";
import { helperTools } from "../../src/engine/sub-agent.ts";
import { agentPlan } from "../../src/engine/agent-roster.ts";
import type { Need, ToolCallContext } from "../../src/tools/capabilities.ts";
import { ALL_TOOLS } from "../../src/tools/index.ts";
import { taskTool } from "../../src/tools/task.ts";
import { defineTool, type PermissionClass, type Tool } from "../../src/tools/tool.ts";
import { type EngineHarness, engineHarness, helperStep, isHelper, ownStep } from "../support/engine.ts";
import type { ChatRequest } from "../support/model.ts";

/** Every capability there is (the compiler says when one is added or gone). */
const NEEDS = Object.keys({
  files: true,
  changes: true,
  model: true,
  commands: true,
  jobs: true,
  people: true,
  settings: true,
  todos: true,
  web: true,
  search: true,
  library: true,
  code: true,
  skills: true,
  helpers: true,
  fileAccess: true,
  lsp: true,
} satisfies Record<Need, true>) as Need[];

/** The call itself, which every tool gets. */
const CALL_MEMBERS = Object.keys({
  sessionId: true,
  callId: true,
  root: true,
  cwd: true,
  signal: true,
  progress: true,
} satisfies Record<keyof ToolCallContext, true>);

/** What each built-in tool uses, and so all it is handed. */
const DECLARED: Record<string, Need[]> = {
  read: ["files", "model", "fileAccess"],
  write: ["files", "changes", "fileAccess", "lsp"],
  edit: ["files", "changes", "fileAccess", "lsp"],
  multi_edit: ["files", "changes", "fileAccess", "lsp"],
  bash: ["commands", "jobs"],
  job: ["jobs"],
  grep: ["files"],
  glob: ["files"],
  code_search: ["code"],
  list: ["files"],
  lsp: ["lsp", "files"],
  fetch: ["web"],
  web_search: ["search"],
  library: ["library"],
  task: ["helpers"],
  skill: ["skills"],
  todo: ["todos"],
  ask_user: ["people"],
  plan_submit: ["changes", "people"],
  settings: ["settings"],
};

describe("the tools' capabilities", () => {
  test("every built-in tool declares the capabilities it uses, each one there is", () => {
    for (const tool of ALL_TOOLS) {
      expect(Array.isArray(tool.needs)).toBe(true);
      for (const need of tool.needs) expect(NEEDS).toContain(need);
    }
    expect(Object.fromEntries(ALL_TOOLS.map((t) => [t.name, [...t.needs]]))).toEqual(DECLARED);
  });

  // tsc holds this one: a capability the tool did not declare is not in its context's type.
  test("a tool that uses a capability it did not declare does not compile", () => {
    const tool = defineTool({
      name: "undeclared",
      description: "reads a file's state, and would ask",
      schema: () => z.object({}),
      permission: "none",
      kind: "other",
      needs: ["files"],
      title: () => "undeclared",
      execute: async (_input, ctx) => {
        // @ts-expect-error: people was not declared
        void ctx.people;
        return { output: ctx.files.readState(ctx.root) };
      },
    });
    expect(tool.needs).toEqual(["files"]);
  });

  test("a helper session offers exactly the read tools whose needs it meets: no stand-ins for the rest", () => {
    expect(helperTools(ALL_TOOLS).map((t) => t.name)).toEqual(["read", "grep", "glob", "code_search", "list"]);
    // Every other read tool needs what a helper cannot give.
    const left = ALL_TOOLS.filter((t) => t.permission === "read" && !helperTools([t]).length);
    expect(left.map((t) => [t.name, [...t.needs]])).toEqual([
      ["job", ["jobs"]],
      ["lsp", ["lsp", "files"]],
      ["fetch", ["web"]],
      ["web_search", ["search"]],
      ["library", ["library"]],
      ["task", ["helpers"]],
      ["skill", ["skills"]],
    ]);
  });

  test("a custom agent may name the tools whose needs an agent meets, never task nor those of the person's or the session's own", () => {
    const agent = { name: "all", description: "d", tools: ALL_TOOLS.map((t) => t.name), disallowed: [], model: null, effort: null, prompt: "", path: "/a.md", source: "yours", problems: [] };
    const plan = agentPlan(agent, ALL_TOOLS, "auto");
    if ("problems" in plan) throw new Error(plan.problems.join("; "));
    expect(plan.tools.map((t) => t.name)).toEqual(["read", "write", "edit", "multi_edit", "bash", "job", "grep", "glob", "list", "lsp", "fetch", "skill"]);
    expect(plan.writes).toBe(true);
    const left = ALL_TOOLS.filter((t) => !plan.tools.includes(t));
    expect(left.map((t) => [t.name, [...t.needs]])).toEqual([
      ["code_search", ["code"]],
      ["web_search", ["search"]],
      ["library", ["library"]],
      ["task", ["helpers"]],
      ["todo", ["todos"]],
      ["ask_user", ["people"]],
      ["plan_submit", ["changes", "people"]],
      ["settings", ["settings"]],
    ]);
    const planned = agentPlan(agent, ALL_TOOLS, "plan");
    // job is no read for a helper: it stops the session's background jobs.
    expect("tools" in planned && planned.tools.map((t) => t.name)).toEqual(["read", "grep", "glob", "list", "lsp", "fetch", "skill"]);
  });

  test("a helper that names job (BashOutput) may change things: it runs alone, and in plan mode it does not get job", () => {
    const agent = { name: "watch", description: "d", tools: ["read", "job"], disallowed: [], model: null, effort: null, prompt: "", path: "/a.md", source: "yours", problems: [] };
    const plan = agentPlan(agent, ALL_TOOLS, "auto");
    expect("writes" in plan && plan.writes).toBe(true);
    const planned = agentPlan(agent, ALL_TOOLS, "plan");
    expect("tools" in planned && planned.tools.map((t) => t.name)).toEqual(["read"]);
  });
});

/** The members of each context the tools below were handed, by tool name. */
const seen = new Map<string, string[]>();

/** A tool that only tells which members its context has. */
function probe(name: string, needs: readonly Need[], permission: PermissionClass = "none"): Tool {
  return defineTool({
    name,
    description: `reports its context (${needs.join(", ") || "the call only"})`,
    brief: "reports its context",
    schema: () => z.object({}),
    permission,
    kind: "other",
    needs,
    title: () => name,
    execute: async (_input, ctx) => {
      seen.set(name, Object.keys(ctx).sort());
      return { output: "seen" };
    },
  });
}

const expected = (needs: readonly Need[]): string[] => [...CALL_MEMBERS, ...needs].sort();
const toolNames = (body: ChatRequest): string[] => (body.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);

describe("the context the engine hands a tool", () => {
  let h: EngineHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
    seen.clear();
  });

  test("a session's tool gets its call and the capabilities it declared, no others", async () => {
    const probes: [string, Need[]][] = [
      ["bare", []],
      ["reader", ["files"]],
      ["asker", ["people", "todos"]],
      ["everything", NEEDS],
    ];
    h = await engineHarness({ tools: probes.map(([name, needs]) => probe(name, needs)) });
    h.model.push(ownStep({ toolCalls: probes.map(([name], i) => ({ id: `c${i}`, name, arguments: {} })) }), ownStep({ text: "done" }));
    const session = await h.session();
    expect(await session.prompt({ text: "look" })).toMatchObject({ stopReason: "end_turn" });
    for (const [name, needs] of probes) expect(seen.get(name)).toEqual(expected(needs));
  });

  test("a helper session offers only the tools whose needs it meets, and builds only what they declared", async () => {
    const tools = [taskTool, probe("look", ["files", "model"], "read"), probe("peek", [], "read"), probe("ask_around", ["people"], "read"), probe("fetchish", ["web"], "read")];
    h = await engineHarness({ tools });
    h.model.push(
      ownStep({ toolCalls: [{ id: "t1", name: "task", arguments: { description: "look around", prompt: "Look." } }] }),
      helperStep({ toolCalls: [{ id: "h1", name: "look", arguments: {} }, { id: "h2", name: "peek", arguments: {} }] }),
      helperStep({ text: "Looked." }),
      ownStep({ text: "done" }),
    );
    const session = await h.session();
    expect(await session.prompt({ text: "look around" })).toMatchObject({ stopReason: "end_turn" });
    const helper = h.model.requests.find((r) => isHelper(r.body));
    expect(toolNames(helper?.body ?? {})).toEqual(["look", "peek"]);
    expect(seen.get("look")).toEqual(expected(["files", "model"]));
    expect(seen.get("peek")).toEqual(expected([]));
  });
});
