import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { setInstanceMcp } from "../../src/store/instance-mcp.ts";
import { saveLogin } from "../../src/store/logins.ts";
import { step } from "../support/engine.ts";
import { type Instance, startInstance } from "../support/instance.ts";
import { mcpHttpHandler } from "../support/mcp-server.ts";
import { type ChatRequest, type ScriptedModel, startModel } from "../support/model.ts";
import { ENTRY, projectSandbox, ROOT, runLembas, type Sandbox } from "../support/run.ts";
import { trustIn } from "../support/trust.ts";
import { processesTagged } from "./processes.ts";

const SERVER = join(ROOT, "test/support/mcp-server.ts");
const TOKEN = "device-token-for-mcp";

let box: Sandbox & { project: string };
let model: ScriptedModel;
let instance: Instance | null = null;
beforeEach(async () => {
  model = await startModel();
  box = projectSandbox(model.url);
});
afterEach(async () => {
  await instance?.close();
  instance = null;
  await model.close();
  box.cleanup();
});

const run = (args: string[]) => runLembas(box, ["run", ...args], { cwd: box.project, timeoutMs: 30_000 });
const addConfig = (yaml: string) => appendFileSync(join(box.configDir, "config.yaml"), yaml);
const server = (flags: string[]) => JSON.stringify([SERVER, ...flags]);
const toolNames = (body: ChatRequest | undefined) => (body?.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);
const toolOutputs = () => (model.requests.at(-1)?.body.messages ?? []).filter((m) => m.role === "tool").map((m) => String((m as { content: unknown }).content));

describe("config.yaml's servers in lembas run", () => {
  test("offered and called; one that does not start is a notice and the others go on; a crash is a tool error, then a restart; a hang is the call's limit", async () => {
    const tag = `config-${crypto.randomUUID()}`;
    addConfig(
      `mcp:\n  notes:\n    command: ${process.execPath}\n    args: ${server([`--tag=${tag}`])}\n  broken:\n    command: ${process.execPath}\n    args: ${server(["--exit-at-start"])}\nmcp_timeouts:\n  start: 5\n  call: 1\n`,
    );
    model.push(
      step({ toolCalls: [{ name: "mcp__notes__echo", arguments: { text: "hi" } }] }),
      step({ toolCalls: [{ name: "mcp__notes__crash", arguments: {} }] }),
      step({ toolCalls: [{ name: "mcp__notes__echo", arguments: { text: "again" } }] }),
      step({ toolCalls: [{ name: "mcp__notes__hang", arguments: {} }] }),
      step({ toolCalls: [{ name: "mcp__notes__read_note", arguments: { name: "n" } }] }),
      step({ text: "all done" }),
    );
    const result = await run(["--yes", "use the notes"]);
    expect(result.stdout).toContain("all done");
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('lembas: MCP server "broken" did not start: it exited with code 3');
    const names = toolNames(model.requests[0]?.body);
    expect(names).toContain("mcp__notes__echo");
    expect(names.some((n) => n.startsWith("mcp__broken__"))).toBe(false);
    const [echo, crash, again, hang, note] = toolOutputs();
    expect(echo).toContain("echo: hi");
    expect(crash).toContain('MCP server "notes" stopped during the crash call');
    expect(again).toContain("echo: again");
    expect(hang).toBe('MCP server "notes" did not answer the hang call within 1 s; the call was cancelled.');
    expect(note).toContain("note n: buy milk");
    expect(processesTagged(tag)).toEqual([]);
  }, 40_000);

  test("a result's large structured content is left out of run --format json, with a sentence; the model gets the text", async () => {
    addConfig(`mcp:\n  notes:\n    command: ${process.execPath}\n    args: ${server([])}\n`);
    model.push(step({ toolCalls: [{ name: "mcp__notes__huge", arguments: { chars: 2_000_000, structured: true } }] }), step({ text: "done" }));
    const result = await run(["--yes", "--format", "json", "summarise"]);
    expect(result.code).toBe(0);
    expect(toolOutputs()).toEqual(["a small summary"]);
    // Measured, not printed: a failure must not dump megabytes.
    expect(result.stdout.length).toBeLessThan(100_000);
    const end = result.stdout.split("\n").find((l) => l.includes('"tool_end"')) ?? "";
    expect(end).toContain("structuredContentLeftOut");
    expect(end).not.toContain("yyyyyyyy");
  }, 30_000);

  test("without servers nothing is offered but the built-ins, and no MCP module is loaded; with one, the hub and the SDK are", async () => {
    const modules = async () => {
      const list = join(box.dir, "loaded.txt");
      const preload = join(box.dir, "loaded.ts");
      writeFileSync(preload, `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(list)}, Object.keys(require.cache).join("\\n")));\n`);
      model.push(step({ text: "plain" }));
      // The source's module graph: `bun src/index.ts` even when the run has compiled the program.
      const child = Bun.spawn([process.execPath, "--preload", preload, ENTRY, "run", "hi"], { cwd: box.project, env: box.env, stdout: "pipe", stderr: "pipe" });
      expect(await child.exited).toBe(0);
      return readFileSync(list, "utf8").split("\n").filter((m) => m.includes("@modelcontextprotocol") || /src\/mcp\/(hub|session-servers|connection)\.ts$/.test(m));
    };
    expect(await modules()).toEqual([]);
    expect(toolNames(model.requests[0]?.body).some((n) => n.startsWith("mcp__"))).toBe(false);
    addConfig(`mcp:\n  notes:\n    command: ${process.execPath}\n    args: ${server([])}\n`);
    const loaded = await modules();
    expect(loaded.some((m) => m.endsWith("src/mcp/hub.ts"))).toBe(true);
    expect(loaded.some((m) => m.includes("@modelcontextprotocol"))).toBe(true);
  }, 30_000);
});

describe("a trusted project's .mcp.json", () => {
  test("asked once: not approved without a terminal (a notice says how); --yes runs them for that run only, never remembered; lembas mcp approve remembers, until the file changes", async () => {
    const tag = `project-${crypto.randomUUID()}`;
    const file = (extra: string) =>
      writeFileSync(join(box.project, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { command: process.execPath, args: [SERVER, `--tag=${tag}`, extra], env: { NOTE_TOKEN: "${HOME}" } } } }));
    file("one");
    trustIn(box, box.project);
    const turn = async (args: string[]) => {
      model.push(step({ text: "ok" }));
      const result = await run([...args, "hi"]);
      expect(result.code).toBe(0);
      return { stderr: result.stderr, names: toolNames(model.requests.at(-1)?.body) };
    };
    const refused = await turn([]);
    expect(refused.stderr).toContain(`the MCP servers of ${join(box.project, ".mcp.json")} are not approved`);
    expect(refused.stderr).toContain("lembas mcp approve");
    expect(refused.names.some((n) => n.startsWith("mcp__proj__"))).toBe(false);
    const yes = await turn(["--yes"]);
    expect(yes.names).toContain("mcp__proj__echo");
    // Nobody saw the servers listed: the next run without --yes neither starts them nor takes them as approved.
    const after = await turn([]);
    expect(after.names.some((n) => n.startsWith("mcp__proj__"))).toBe(false);
    expect(after.stderr).toContain("are not approved");
    expect(yes.stderr).toContain("run for this session only, as --yes allowed them: approve them for good with lembas mcp approve");
    expect((await runLembas(box, ["mcp", "approve"], { cwd: box.project })).code).toBe(0);
    const remembered = await turn([]);
    expect(remembered.stderr).not.toContain("not approved");
    expect(remembered.names).toContain("mcp__proj__echo");
    file("two");
    const changed = await turn([]);
    expect(changed.stderr).toContain("are not approved");
    expect(changed.names.some((n) => n.startsWith("mcp__proj__"))).toBe(false);
    expect(processesTagged(tag)).toEqual([]);
  }, 60_000);

  test("lembas mcp approve approves the file as it reads", async () => {
    writeFileSync(join(box.project, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { command: process.execPath, args: [SERVER] } } }));
    trustIn(box, box.project);
    const approve = await runLembas(box, ["mcp", "approve"], { cwd: box.project });
    expect(approve.code).toBe(0);
    expect(approve.stdout).toContain("proj");
    model.push(step({ text: "ok" }));
    expect((await run(["hi"])).code).toBe(0);
    expect(toolNames(model.requests.at(-1)?.body)).toContain("mcp__proj__echo");
  }, 30_000);
});

describe("the instance's /mcp for a login", () => {
  test("asked at lembas login, then offered to the first session with the device token, and called", async () => {
    instance = await startInstance({ token: TOKEN, mcp: mcpHttpHandler({ token: TOKEN }) });
    const login = await runLembas(box, ["login", instance.url, "--name", "example", "--token-stdin"], { cwd: box.project, stdin: TOKEN });
    expect(login.code).toBe(0);
    expect(login.stdout).toContain("the instance serves MCP tools at /mcp");
    model.push(step({ toolCalls: [{ name: "mcp__example__echo", arguments: { text: "from the instance" } }] }), step({ text: "ok" }));
    const result = await run(["--yes", "hi"]);
    expect(result.code).toBe(0);
    expect(toolNames(model.requests[0]?.body)).toContain("mcp__example__echo");
    expect(toolOutputs()[0]).toContain("echo: from the instance");
    expect(result.stderr + result.stdout).not.toContain(TOKEN);
  }, 30_000);

  test("a token the instance's /mcp refuses: a notice, and the session goes on", async () => {
    instance = await startInstance({ token: TOKEN, mcp: mcpHttpHandler({ token: "another-token" }) });
    const db = openDb(join(box.stateDir, "lembas.db"));
    saveLogin(db, { name: "example", url: instance.url, token: TOKEN, protocols: [1, 2] });
    // As a login whose probe found /mcp left it.
    setInstanceMcp(db, instance.url, true);
    db.close();
    model.push(step({ text: "went on" }));
    const result = await run(["hi"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("went on");
    expect(result.stderr).toContain(`MCP server "example" did not start: ${instance.url}/mcp answered HTTP 401 (its credentials were refused)`);
    expect(result.stderr).not.toContain(TOKEN);
  }, 30_000);
});
