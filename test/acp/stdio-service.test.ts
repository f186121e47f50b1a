/**
 * `lembas serve --stdio` through the service: with `lembas serve` running, the editor's stdio
 * process hands its sessions to the service's engine over the control socket (GET /v1/acp), and
 * the editor sees the same plain ACP; without a service, with one of another version or config, or
 * with LEMBAS_STDIO_OWN_ENGINE=1, it serves with its own engine. Cancel and permission requests go
 * through; a service that dies mid-turn leaves the editor an error and the process exits 1.
 */
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { getHold } from "../../src/store/holds.ts";
import { listTurns } from "../../src/store/turns.ts";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { type Device, type ServiceTest, sharedServiceEach, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { rpcError } from "../support/rpc.ts";
import { LEMBAS } from "../support/run.ts";
import { VERSION } from "../../src/version.ts";

let d: Device | null = null;
let a: StdioAgent | null = null;
afterEach(async () => {
  await a?.close();
  a = null;
  await d?.close();
  d = null;
});

/** The file's one service, with the test's own model and project (work/project-N): for the tests that neither kill it nor stop it. */
let oneService: ServiceTest;
sharedServiceEach((t) => {
  oneService = t;
});

/**
 * A device with its service running (linked to the simulated instance), and an editor's serve
 * --stdio beside it: the file's one service, or with `own` a device of the test's own (a test that
 * kills the service).
 */
async function withService(env: Record<string, string> = {}, opts: { own?: boolean } = {}): Promise<{ d: Device; a: StdioAgent; servicePid: number }> {
  let device = oneService.d;
  if (opts.own) {
    device = d = await startDevice();
    await device.serve();
  }
  a = await startStdioAgent({ device, model: device.model, env });
  const servicePid = device.service?.pid;
  if (!servicePid) throw new Error("no service");
  return { d: device, a, servicePid };
}

const newSession = async (agent: StdioAgent, meta?: Record<string, unknown>) => {
  await agent.agent.request("initialize", initializeParams);
  return agent.agent.request("session/new", { cwd: agent.project, mcpServers: [], ...(meta ? { _meta: meta } : {}) });
};

const holderPid = (device: Device, sessionId: string) => {
  const db = openDb(join(device.box.stateDir, "lembas.db"));
  try {
    return getHold(db, sessionId)?.pid ?? null;
  } finally {
    db.close();
  }
};

const chunks = (agent: StdioAgent) =>
  agent.updates
    .filter((u) => u.update.sessionUpdate === "agent_message_chunk")
    .map((u) => (u.update as { content: { text: string } }).content.text)
    .join("");

test("with a service running, initialize, session/new and a prompt are served by the service's engine: its pid holds the session and the tool runs in it", async () => {
  const { d, a, servicePid } = await withService({ LEMBAS_EDITOR_MARK: "from-the-editor" });
  d.model.push(
    step({ toolCalls: [{ name: "bash", arguments: { command: 'echo "mark=[$LEMBAS_EDITOR_MARK] parent=$PPID"' } }] }),
    step({ text: "done through the service" }),
  );
  const { sessionId } = await newSession(a);
  const result = await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  expect(result.stopReason).toBe("end_turn");
  expect(chunks(a)).toBe("done through the service");
  expect(holderPid(d, sessionId)).toBe(servicePid);
  // The tool ran with the service's environment, not the editor's.
  const output = JSON.stringify(a.updates.filter((u) => u.update.sessionUpdate === "tool_call_update"));
  expect(output).toContain("mark=[]");
  expect(output).not.toContain("from-the-editor");
  // Nothing but protocol messages on stdout: the service's welcome stays in the stdio process.
  for (const line of a.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
  expect(a.stdoutLines.join("\n")).not.toContain("_lembas/ipc");
  expect(d.log()).toContain("an editor's serve --stdio connected");
});

test("without a service it serves with its own engine, silently; once one runs, the next serve --stdio is the service's", async () => {
  d = await startDevice();
  a = await startStdioAgent({ device: d, model: d.model });
  d.model.push(step({ text: "alone" }));
  const alone = await newSession(a);
  const result = await a.agent.request("session/prompt", { sessionId: alone.sessionId, prompt: [{ type: "text", text: "go" }] });
  expect(result.stopReason).toBe("end_turn");
  expect(chunks(a)).toBe("alone");
  expect(holderPid(d, alone.sessionId)).toBe(a.proc.pid);
  expect(a.stderr()).toBe("");
  await a.close();
  await d.serve();
  a = await startStdioAgent({ device: d, model: d.model });
  const served = await newSession(a);
  expect(holderPid(d, served.sessionId)).toBe(d.service?.pid ?? -1);
});

test("LEMBAS_STDIO_OWN_ENGINE=1 and --own-engine serve with their own engine while a service runs", async () => {
  const { d, a: own } = await withService({ LEMBAS_STDIO_OWN_ENGINE: "1" });
  d.model.push(step({ text: "mine" }));
  const { sessionId } = await newSession(own);
  await own.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  expect(holderPid(d, sessionId)).toBe(own.proc.pid);
  await own.close();
  a = null;
  const flagged = await startStdioAgent({ device: d, model: d.model, cmd: [...LEMBAS, "serve", "--stdio", "--own-engine"] });
  try {
    const mine = await newSession(flagged);
    expect(holderPid(d, mine.sessionId)).toBe(flagged.proc.pid);
  } finally {
    await flagged.close();
  }
  a = await startStdioAgent({ device: d, model: d.model });
  const served = await newSession(a);
  expect(holderPid(d, served.sessionId)).toBe(d.service?.pid ?? -1);
});

test("through the service, lines that are no request get the answers the process's own engine gives them, and the editor's end is its own to say", async () => {
  const { d, a: served } = await withService();
  const own = await startStdioAgent({ device: d, model: d.model, env: { LEMBAS_STDIO_OWN_ENGINE: "1" } });
  try {
    const answers = async (agent: StdioAgent) => {
      const { sessionId } = await newSession(agent);
      const before = agent.stdoutLines.length;
      for (const line of ["not json", "[1, 2]", "42", JSON.stringify({ jsonrpc: "1.0", id: 7, method: "session/list" }), JSON.stringify({ jsonrpc: "2.0", method: "_lembas/ipc/editor_end" })]) agent.sendRaw(line);
      // A prompt after them is answered: the editor's session is still its own (the end it wrote was not passed on).
      d.model.push(step({ text: "still here" }));
      const result = await agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
      expect(result.stopReason).toBe("end_turn");
      return agent.stdoutLines.slice(before).filter((l) => l.includes('"error"'));
    };
    const theirs = await answers(served);
    expect(theirs).toEqual(await answers(own));
    expect(theirs.map((l) => (JSON.parse(l) as { error: { code: number } }).error.code)).toEqual([-32700, -32600, -32600, -32600]);
  } finally {
    await own.close();
  }
});

test("a service that reads another config file refuses the editor, which says so on stderr and serves with its own engine", async () => {
  d = await startDevice();
  await d.serve();
  // The same state dir (and socket), another config dir: the service would run the editor's sessions under another config.
  const other = join(d.box.dir, "other-config");
  mkdirSync(other, { recursive: true });
  writeFileSync(join(other, "config.yaml"), readFileSync(join(d.box.configDir, "config.yaml"), "utf8"));
  a = await startStdioAgent({ device: d, model: d.model, env: { LEMBAS_CONFIG_DIR: other } });
  d.model.push(step({ text: "own" }));
  const { sessionId } = await newSession(a);
  await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  expect(chunks(a)).toBe("own");
  expect(holderPid(d, sessionId)).toBe(a.proc.pid);
  expect(a.stderr()).toContain(`serving with this process's own engine: the service reads ${join(d.box.configDir, "config.yaml")}, not ${join(other, "config.yaml")}`);
});

test("a service of another version on the socket (or one without /v1/acp): the editor hears to restart it on stderr and is served by its own engine", async () => {
  d = await startDevice();
  const socket = join(d.box.stateDir, "service.sock");
  mkdirSync(d.box.stateDir, { recursive: true });
  for (const kind of ["newer", "older"] as const) {
    rmSync(socket, { force: true });
    // A service of 9.9.9 that takes the editor but welcomes it as 9.9.9; one of 0.0.1 that has no /v1/acp (404).
    const old = Bun.serve({
      unix: socket,
      fetch(request, server) {
        const path = new URL(request.url).pathname;
        if (path === "/status") return Response.json({ pid: 1, version: "0.0.1", startedAt: new Date().toISOString(), links: [] });
        if (kind === "newer" && path === "/v1/acp" && server.upgrade(request)) return undefined;
        return Response.json({ error: "no such control endpoint" }, { status: 404 });
      },
      websocket: {
        open: (ws) => void ws.send(JSON.stringify({ jsonrpc: "2.0", method: "_lembas/ipc/editor", params: { ipc: 1, version: "9.9.9", pid: 1 } })),
        message: () => {},
      },
    });
    try {
      a = await startStdioAgent({ device: d, model: d.model });
      d.model.push(step({ text: `own ${kind}` }));
      const { sessionId } = await newSession(a);
      await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
      expect(chunks(a)).toBe(`own ${kind}`);
      expect(holderPid(d, sessionId)).toBe(a.proc.pid);
      expect(a.stderr()).toContain(`the service runs lembas ${kind === "newer" ? "9.9.9" : "0.0.1"} and this is ${VERSION} (restart the service to serve editors from it)`);
      await a.close();
      a = null;
    } finally {
      await old.stop(true);
    }
  }
});

test("through the service: session/cancel answers the prompt cancelled", async () => {
  const { d, a, servicePid } = await withService();
  d.model.push(step({ text: ["one ", "two ", "three ", "four"], chunkDelayMs: 300 }));
  const { sessionId } = await newSession(a);
  const prompt = a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "count" }] });
  await a.waitForLine((l) => l.includes("agent_message_chunk"));
  expect(holderPid(d, sessionId)).toBe(servicePid);
  await a.agent.notify("session/cancel", { sessionId });
  expect((await prompt).stopReason).toBe("cancelled");
});

test("through the service: a permission request reaches the editor, and its answer the service's turn", async () => {
  const { d, a, servicePid } = await withService();
  d.model.push(step({ toolCalls: [{ name: "write", arguments: { path: "asked.md", content: "yes\n" } }] }), step({ text: "written" }));
  const { sessionId } = await newSession(a, { mode: "manual" });
  const result = await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write it" }] });
  expect(result.stopReason).toBe("end_turn");
  expect(a.permissionRequests).toHaveLength(1);
  expect(a.permissionRequests[0]?.sessionId).toBe(sessionId);
  expect(readFileSync(join(a.project, "asked.md"), "utf8")).toBe("yes\n");
  expect(holderPid(d, sessionId)).toBe(servicePid);
});

test("through the service: stdin closed mid-turn cancels the turn in the service, and the stdio process exits 0", async () => {
  const { d, a, servicePid } = await withService();
  d.model.push(step({ text: ["slow ", "words ", "here ", "and ", "more"], chunkDelayMs: 400 }));
  const { sessionId } = await newSession(a);
  void a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "talk" }] }).catch(() => {});
  await a.waitForLine((l) => l.includes("agent_message_chunk"));
  expect(holderPid(d, sessionId)).toBe(servicePid);
  a.proc.stdin.end();
  expect(await a.proc.exited).toBe(0);
  expect(a.stdoutLines.some((l) => l.includes('"stopReason":"cancelled"'))).toBe(true);
  const db = openDb(join(d.box.stateDir, "lembas.db"));
  expect(listTurns(db, sessionId)[0]).toMatchObject({ state: "done", answer: { stopReason: "cancelled" } });
  // The service let go of the session once its editor went.
  expect(getHold(db, sessionId)).toBeNull();
  db.close();
  expect(d.service?.pid).toBe(servicePid);
});

test("the service killed mid-turn: the editor's prompt is answered with an error, stderr says so, and the stdio process exits 1", async () => {
  const { d, a } = await withService({}, { own: true });
  d.model.push(step({ text: ["slow ", "words ", "here ", "and ", "more"], chunkDelayMs: 400 }));
  const { sessionId } = await newSession(a);
  const prompt = rpcError(a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "talk" }] }));
  await a.waitForLine((l) => l.includes("agent_message_chunk"));
  await d.kill("SIGKILL");
  const error = await prompt;
  expect(error.code).toBe(-32603);
  expect(error.message).toContain("the lembas service stopped before it answered");
  expect(await a.proc.exited).toBe(1);
  expect(a.stderr()).toContain("stopped mid-session");
  for (const line of a.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
  expect(existsSync(join(d.box.stateDir, "service.sock"))).toBe(true);
});

test("a service that does not answer (SIGSTOP): after a second the editor is served by its own engine, and stderr says why", async () => {
  d = await startDevice();
  await d.serve();
  const service = d.service;
  if (!service) throw new Error("no service");
  process.kill(service.pid, "SIGSTOP");
  try {
    // The stopped service never answers: the line says the 1 s bound was reached (an agent that waited on would time the test out).
    a = await startStdioAgent({ device: d, model: d.model });
    const { sessionId } = await newSession(a);
    expect(holderPid(d, sessionId)).toBe(a.proc.pid);
    expect(a.stderr()).toContain("did not answer within 1000 ms");
  } finally {
    process.kill(service.pid, "SIGCONT");
  }
});
