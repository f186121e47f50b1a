import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { approveProjectServers, projectServers } from "../../src/mcp/from-project.ts";
import { openDb } from "../../src/store/db.ts";
import { saveLogin } from "../../src/store/logins.ts";
import { findSandbox } from "../../src/tools/sandbox.ts";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { type Device, startDevice } from "../support/device.ts";
import { type Instance, startInstance } from "../support/instance.ts";
import { mcpHttpHandler } from "../support/mcp-server.ts";
import { rpcError } from "../support/rpc.ts";
import { ROOT, runLembas, type Sandbox, sandbox } from "../support/run.ts";
import { bwrapSandbox } from "../support/tools.ts";

const SERVER = join(ROOT, "test/support/mcp-server.ts");

const TOKEN = "device-token-never-shown";

let box: Sandbox;
let project: string;
let instance: Instance | null = null;
beforeEach(() => {
  box = sandbox();
  project = join(box.dir, "project");
  mkdirSync(project, { recursive: true });
});
afterEach(async () => {
  await instance?.close();
  instance = null;
  box.cleanup();
});

const lembas = (args: string[], env: Record<string, string> = {}) => runLembas(box, args, { cwd: project, env });
const writeMcp = (servers: unknown) => writeFileSync(join(project, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
const withDb = <T>(use: (db: ReturnType<typeof openDb>) => T): T => {
  const db = openDb(join(box.stateDir, "lembas.db"));
  try {
    return use(db);
  } finally {
    db.close();
  }
};

describe("lembas config set mcp.NAME…", () => {
  test("sets a server key by key, and lembas mcp list shows it with its source", async () => {
    expect(await lembas(["config", "set", "mcp.git.command", "uvx"])).toMatchObject({ code: 0, stdout: "mcp.git.command = uvx\n" });
    expect((await lembas(["config", "set", "mcp.git.args", "[mcp-server-git, --repository, my repo]"])).code).toBe(0);
    expect((await lembas(["config", "set", "mcp.docs", "{url: 'https://docs.example/mcp'}"])).code).toBe(0);
    expect(Bun.YAML.parse(readFileSync(join(box.configDir, "config.yaml"), "utf8"))).toEqual({
      mcp: { git: { command: "uvx", args: ["mcp-server-git", "--repository", "my repo"] }, docs: { url: "https://docs.example/mcp" } },
    });
    const list = await lembas(["mcp", "list", "--no-start"]);
    expect(list).toMatchObject({ code: 0, stderr: "" });
    expect(list.stdout).toBe("git   config  uvx mcp-server-git --repository 'my repo'\ndocs  config  https://docs.example/mcp\n");
  });

  test("a key a server does not take, or args before a command, is one clear line", async () => {
    const typo = await lembas(["config", "set", "mcp.git.comand", "uvx"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("mcp.git.comand: is not a known key (did you mean mcp.git.command?)");
    const early = await lembas(["config", "set", "mcp.git.args", "[x]"]);
    expect(early.code).toBe(2);
    expect(early.stderr).toContain("mcp.git: needs command (a server lembas starts) or url (one it reaches over HTTP)");
  });
});

describe("lembas mcp list", () => {
  test("nothing configured says how to add a server", async () => {
    expect((await lembas(["mcp", "list"])).stdout).toBe("no MCP servers: add one to config.yaml (lembas config set mcp.NAME.command …) or a project's .mcp.json\n");
  });

  test("a project's .mcp.json: ignored untrusted, waiting once trusted, approved once approved", async () => {
    writeMcp({ lint: { command: "npx", args: ["lint-mcp"] } });
    expect((await lembas(["mcp", "list"])).stdout).toBe("the project's .mcp.json is ignored: the project is not trusted (lembas trust, then lembas mcp list again)\n");
    expect((await lembas(["trust"])).code).toBe(0);
    expect((await lembas(["mcp", "list"])).stdout).toBe(`lint  project  npx lint-mcp  — waits for approval of ${join(project, ".mcp.json")}\n`);
    withDb((db) => approveProjectServers(db, project, projectServers(project, db, {}).needsApproval?.hash ?? ""));
    expect((await lembas(["mcp", "list", "--no-start"])).stdout).toBe("lint  project  npx lint-mcp  — approved\n");
  });

  test("a login whose instance serves /mcp is listed, and its token is in no output", async () => {
    instance = await startInstance({ token: TOKEN, mcp: mcpHttpHandler({ token: TOKEN }) });
    const url = instance.url;
    withDb((db) => saveLogin(db, { name: "example", url, token: TOKEN, protocols: [1, 2] }));
    expect((await lembas(["mcp", "list", "--no-start"])).stdout).toBe(`example  instance  ${url}/mcp\n`);
    // Started: whether it starts, and its tools.
    const list = await lembas(["mcp", "list"]);
    expect(list.stdout).toStartWith(`example  instance  ${url}/mcp  — starts, 11 tools: echo, read_note, lookup, hang,`);
    const doctor = await lembas(["doctor"]);
    expect(doctor.stdout).toContain(`ok   mcp example (instance): ${url}/mcp, starts, 11 tools\n`);
    for (const text of [list.stdout, list.stderr, doctor.stdout, doctor.stderr]) expect(text).not.toContain(TOKEN);
  });
});

describe("lembas doctor", () => {
  test("lists each server; a command not on PATH and servers waiting for approval are fix lines", async () => {
    mkdirSync(box.configDir, { recursive: true });
    writeFileSync(
      join(box.configDir, "config.yaml"),
      `mcp:\n  notes:\n    command: ${process.execPath}\n    args: [${SERVER}]\n  shell:\n    command: sh\n    args: [-c, 'true']\n  gone:\n    command: no-such-mcp-server\n`,
    );
    writeMcp({ lint: { command: "npx" } });
    expect((await lembas(["trust"])).code).toBe(0);
    const doctor = await lembas(["doctor"]);
    expect(doctor.code).toBe(1);
    const lines = doctor.stdout.split("\n").filter((l) => l.includes(" mcp "));
    expect(lines).toEqual([
      `ok   mcp notes (config): ${process.execPath} ${SERVER}, starts, 14 tools`,
      `fix  mcp shell (config): sh -c true: MCP server "shell" did not start: it exited with code 0 before it answered — fix the server's entry, or run its command by hand to see why`,
      "fix  mcp gone (config): its command no-such-mcp-server is not on PATH — install it, or fix config.yaml's mcp.gone.command",
      `fix  mcp lint (project): npx, waits for approval of ${join(project, ".mcp.json")} — run lembas mcp approve in ${project}, or start lembas there and approve them when asked`,
    ]);
  });
});

describe("lembas mcp list of a server that writes terminal control", () => {
  test("its tool names and its stderr print as text: no escape, no bidi override", async () => {
    mkdirSync(box.configDir, { recursive: true });
    writeFileSync(
      join(box.configDir, "config.yaml"),
      `mcp:\n  evil:\n    command: ${process.execPath}\n    args: [${SERVER}, --hostile]\n  dying:\n    command: ${process.execPath}\n    args: [${SERVER}, --hostile-exit]\n`,
    );
    const list = await lembas(["mcp", "list"]);
    const out = list.stdout + list.stderr;
    expect(out).toContain("starts, 15 tools");
    expect(out).toContain("ownedgnp.exe");
    expect(out).toContain("its stderr ended with");
    expect(out).not.toMatch(/[\x1b\x07\u202e]/);
  });
});

const bwrap = bwrapSandbox("lembas mcp list's sandbox test");

describe.skipIf(!bwrap)("lembas mcp list and doctor in the tools' sandbox", () => {
  test("start the servers as a session does: lembas.db is out of their sight", async () => {
    mkdirSync(box.configDir, { recursive: true });
    const db = join(box.stateDir, "lembas.db");
    // The server exits at start where it can read the database.
    writeFileSync(join(box.configDir, "config.yaml"), `mcp:\n  notes:\n    command: ${process.execPath}\n    args: [${SERVER}, --must-not-see=${db}]\n`);
    expect((await lembas(["trust"])).code).toBe(0);
    expect(readFileSync(db).length).toBeGreaterThan(0);
    const list = await lembas(["mcp", "list"]);
    expect(list.stdout).toContain("starts, 14 tools");
    const doctor = await lembas(["doctor"]);
    expect(doctor.stdout).toContain(`ok   mcp notes (config): ${process.execPath} ${SERVER} --must-not-see=${db}, starts, 14 tools`);
  });
});

describe("session/new's mcpServers on serve --stdio", () => {
  let a: StdioAgent | null = null;
  afterEach(async () => {
    await a?.close();
    a = null;
  });

  test("a stdio server is taken; a malformed one and an sse one are -32602 with a sentence", async () => {
    a = await startStdioAgent();
    await a.agent.request("initialize", initializeParams);
    const good = await a.agent.request("session/new", { cwd: a.project, mcpServers: [{ name: "git", command: "/bin/true", args: [], env: [] }] });
    expect(good).toMatchObject({ sessionId: expect.stringMatching(/^ses_/) });
    const line = (id: number, mcpServers: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "session/new", params: { cwd: a?.project, mcpServers } });
    a.sendRaw(line(901, [{ name: "git", command: "/bin/true", env: [] }]));
    const malformed = await a.waitForLine((l) => l.includes('"id":901'));
    expect(JSON.parse(malformed)).toEqual({ jsonrpc: "2.0", id: 901, error: { code: -32602, message: 'Invalid params: mcpServers[0] ("git"): args is missing' } });
    // An http server is taken on stdio (test/acp/editor-mcp-http.test.ts); SSE is not spoken.
    const sse = await rpcError(a.agent.request("session/new", { cwd: a.project, mcpServers: [{ type: "sse", name: "docs", url: "https://docs.example/mcp", headers: [] }] }));
    expect(sse.code).toBe(-32602);
    expect(sse.message).toContain('mcpServers[0] ("docs") is an sse server, and lembas does not speak MCP over SSE');
  });
});

describe("session/new's mcpServers on the link", () => {
  let d: Device | null = null;
  afterEach(async () => {
    await d?.close();
    d = null;
  });

  test("are refused: the instance cannot have the device run a command as an MCP server", async () => {
    d = await startDevice();
    const link = await d.serve();
    const refused = await rpcError(link.request("session/new", { cwd: d.project, mcpServers: [{ name: "x", command: "/bin/sh", args: ["-c", "touch pwned"], env: [] }] }));
    expect(refused).toMatchObject({ code: -32602, message: expect.stringContaining("a session opened from the web takes no MCP servers") });
    expect(await link.request("session/new", { cwd: d.project, mcpServers: [] })).toMatchObject({ sessionId: expect.stringMatching(/^ses_/) });
  });
});
