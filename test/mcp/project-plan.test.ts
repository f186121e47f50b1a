/**
 * Plan mode runs no commands, a project's MCP servers included: a trusted project's .mcp.json is
 * neither asked about nor started in plan mode (the session's, or a turn's under
 * remote.max_mode), a notice says why, and the first turn in a higher mode asks, or starts them.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Device, lembasEvents, startDevice } from "../support/device.ts";
import { engineHarness, type EngineHarness, ofType, person, step } from "../support/engine.ts";
import type { Link } from "../support/instance.ts";
import { type ChatRequest, type ScriptedModel, startModel } from "../support/model.ts";
import { projectSandbox, ROOT, runLembas, type Sandbox } from "../support/run.ts";
import { trustDir } from "../../src/store/trust.ts";
import { processesTagged } from "./processes.ts";

const SERVER = join(ROOT, "test/support/mcp-server.ts");
const HELD = "are not started in plan mode, which runs no commands";

const toolNames = (body: ChatRequest | undefined) => (body?.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);

/**
 * A .mcp.json whose one server leaves a mark (`started` in the project) the moment its command
 * runs, then serves the test server, tagged.
 */
function mcpFile(project: string, tag: string): string {
  const marker = join(project, "started");
  const command = `echo yes > '${marker}'; exec '${process.execPath}' '${SERVER}' --tag=${tag}`;
  writeFileSync(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { command: "/bin/sh", args: ["-c", command] } } }));
  return marker;
}

describe("lembas run in plan mode", () => {
  let model: ScriptedModel;
  let box: Sandbox & { project: string };
  afterEach(async () => {
    await model.close();
    box.cleanup();
  });

  const setUp = async () => {
    model = await startModel();
    box = projectSandbox(model.url);
    expect((await runLembas(box, ["trust"], { cwd: box.project })).code).toBe(0);
  };
  const run = (args: string[]) => runLembas(box, ["run", ...args], { cwd: box.project, timeoutMs: 30_000 });

  test("a .mcp.json waiting for approval is not asked about (not even with --yes) and nothing starts; a notice says why", async () => {
    await setUp();
    const tag = `plan-ask-${crypto.randomUUID()}`;
    const marker = mcpFile(box.project, tag);
    model.push(step({ text: "planned" }));
    const yes = await run(["--mode", "plan", "--yes", "look around"]);
    expect(yes.code).toBe(0);
    expect(yes.stderr).toContain(`the MCP servers of ${join(box.project, ".mcp.json")} ${HELD}: lembas asks about them when the mode is raised`);
    expect(existsSync(marker)).toBe(false);
    expect(toolNames(model.requests.at(-1)?.body).some((n) => n.startsWith("mcp__proj__"))).toBe(false);
    // Nobody said yes: in edit mode, with nobody to ask, it is still not approved.
    model.push(step({ text: "ok" }));
    const edit = await run(["--mode", "edit", "hi"]);
    expect(edit.stderr).toContain("are not approved");
    expect(existsSync(marker)).toBe(false);
    expect(processesTagged(tag)).toEqual([]);
  }, 60_000);

  test("an approved .mcp.json's servers are not started in plan mode; in edit mode they are", async () => {
    await setUp();
    const tag = `plan-approved-${crypto.randomUUID()}`;
    const marker = mcpFile(box.project, tag);
    expect((await runLembas(box, ["mcp", "approve"], { cwd: box.project })).code).toBe(0);
    model.push(step({ text: "planned" }));
    const plan = await run(["--mode", "plan", "look around"]);
    expect(plan.code).toBe(0);
    expect(plan.stderr).toContain(`the MCP servers of the project's .mcp.json ${HELD}: they start when the mode is raised`);
    expect(existsSync(marker)).toBe(false);
    model.push(step({ text: "done" }));
    expect((await run(["--mode", "edit", "go"])).code).toBe(0);
    expect(existsSync(marker)).toBe(true);
    expect(toolNames(model.requests.at(-1)?.body)).toContain("mcp__proj__echo");
    expect(processesTagged(tag)).toEqual([]);
  }, 60_000);
});

describe("a turn capped at plan in a session above it (a web prompt in a terminal's shared session)", () => {
  let h: EngineHarness | null = null;
  afterEach(async () => {
    await h?.close();
    h = null;
  });

  test("is not asked about the .mcp.json; the terminal's next turn asks", async () => {
    h = await engineHarness({ mcp: true });
    trustDir(h.db, h.project);
    const tag = `turn-cap-${crypto.randomUUID()}`;
    const marker = mcpFile(h.project, tag);
    const session = await h.session({ mode: "edit" });
    const yes = person([{ outcome: "once" }]);
    session.interaction = yes;
    h.model.push(step({ text: "planned" }));
    await session.prompt({ text: "from the web", maxMode: "plan" });
    expect(yes.asked).toEqual([]);
    expect(existsSync(marker)).toBe(false);
    expect(ofType(h.events(session), "notice").map((n) => n.message)).toContain(
      `the MCP servers of ${join(h.project, ".mcp.json")} ${HELD}: lembas asks about them when the mode is raised`,
    );
    h.model.push(step({ text: "done" }));
    await session.prompt({ text: "from the terminal" });
    expect(yes.asked.map((r) => r.toolName)).toEqual(["mcp_servers"]);
    expect(existsSync(marker)).toBe(true);
    expect(toolNames(h.model.requests.at(-1)?.body)).toContain("mcp__proj__echo");
  }, 30_000);
});

describe("over the link", () => {
  let d: Device | null = null;
  afterEach(async () => {
    await d?.close();
    d = null;
  });

  const device = async (maxMode: string) => {
    const made = await startDevice();
    d = made;
    writeFileSync(
      join(made.box.configDir, "config.yaml"),
      `model: test/test-model\nconnections:\n  test:\n    base_url: ${made.model.url}\nremote:\n  roots: [${made.work}]\n  max_mode: ${maxMode}\nembedding: null\n`,
    );
    return made;
  };
  const cardsOf = (link: Link) => link.requests.filter((r) => r.method === "session/request_permission");
  const notices = (link: Link, sessionId: string) => lembasEvents(link, sessionId).filter((e) => e.type === "notice").map((e) => e.message as string);

  test("under remote.max_mode plan the web gets no card and nothing starts, with a notice", async () => {
    const made = await device("plan");
    const tag = `link-plan-${crypto.randomUUID()}`;
    const marker = mcpFile(made.project, tag);
    const link = await made.serve();
    link.onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "once" } }));
    const { sessionId } = (await link.request("session/new", { cwd: made.project, mcpServers: [], _meta: { mode: "edit" } })) as { sessionId: string };
    made.model.push(step({ text: "planned" }));
    await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "look" }] }, 30_000);
    expect(cardsOf(link)).toEqual([]);
    expect(existsSync(marker)).toBe(false);
    expect(notices(link, sessionId).some((m) => m.includes(HELD))).toBe(true);
  }, 60_000);

  test("a session in plan mode asks nothing; raised to edit, its next turn asks, and a yes starts them", async () => {
    const made = await device("edit");
    const tag = `link-raise-${crypto.randomUUID()}`;
    const marker = mcpFile(made.project, tag);
    const link = await made.serve();
    link.onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "once" } }));
    const { sessionId } = (await link.request("session/new", { cwd: made.project, mcpServers: [], _meta: { mode: "plan" } })) as { sessionId: string };
    made.model.push(step({ text: "planned" }));
    await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "look" }] }, 30_000);
    expect(cardsOf(link)).toEqual([]);
    expect(existsSync(marker)).toBe(false);
    expect(notices(link, sessionId).some((m) => m.includes(HELD))).toBe(true);
    await link.request("session/set_mode", { sessionId, modeId: "edit" });
    made.model.push(step({ text: "done" }));
    await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] }, 30_000);
    expect(cardsOf(link).map((c) => (c.params as { toolCall: { title: string } }).toolCall.title)).toEqual([`Use the MCP servers of ${join(made.project, ".mcp.json")}?`]);
    expect(existsSync(marker)).toBe(true);
    expect(toolNames(made.model.requests.at(-1)?.body)).toContain("mcp__proj__echo");
  }, 60_000);
});
