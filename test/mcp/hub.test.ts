import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpHub, type McpHubOptions } from "../../src/mcp/hub.ts";
import { inputSchema, MAX_RESULT_CHARS, type Tool } from "../../src/tools/tool.ts";
import { PNG_BASE64 } from "../support/mcp-server.ts";
import { cleanupTempDirs, makeContext } from "../tools/context.ts";
import { processesTagged, stdioServer } from "./servers.ts";

const hubs: McpHub[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((h) => h.stop()));
});
afterAll(() => {
  cleanupTempDirs();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const never = new AbortController().signal;

async function startHub(options: McpHubOptions = {}, ...switches: string[]) {
  const notices: string[] = [];
  const hub = new McpHub({ onNotice: (m) => void notices.push(m), ...options });
  hubs.push(hub);
  const tag = crypto.randomUUID();
  const problems = await hub.start([stdioServer("t", tag, ...switches)], never);
  return { hub, problems, notices, tag };
}

function tool(hub: McpHub, name: string): Tool {
  const found = hub.tools().find((t) => t.name === name);
  if (!found) throw new Error(`no ${name} among ${hub.tools().map((t) => t.name).join(", ")}`);
  return found;
}

async function call(hub: McpHub, name: string, input: Record<string, unknown> = {}, opts: { vision?: boolean; signal?: AbortSignal } = {}) {
  const t = tool(hub, name);
  const { ctx } = makeContext(opts);
  return t.execute(t.schema.parse(input), ctx);
}

describe("the hub against the test server", () => {
  test("offers each tool as mcp__<server>__<tool>, with the server's schema, description and classes", async () => {
    const { hub, problems } = await startHub();
    expect(problems).toEqual([]);
    const names = hub.tools().map((t) => t.name);
    expect(names).toContain("mcp__t__echo");
    expect(names).toContain("mcp__t__weird_name_with_spaces");
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);

    const echo = tool(hub, "mcp__t__echo");
    expect([echo.permission, echo.kind]).toEqual(["exec", "other"]);
    expect(echo.description).toContain("Says the text back.");
    expect(inputSchema(echo)).toEqual({ type: "object", properties: { text: { type: "string", description: "What to say" } }, required: ["text"] });
    expect(echo.title({ text: "hi" }, { root: "/", cwd: "/" })).toBe('t: echo {"text":"hi"}');
    expect(inputSchema(tool(hub, "mcp__t__weird_name_with_spaces"))).toEqual({ type: "object", properties: {}, required: [] });

    const note = tool(hub, "mcp__t__read_note");
    expect([note.permission, note.kind]).toEqual(["read", "read"]);
    const lookup = tool(hub, "mcp__t__lookup");
    expect([lookup.permission, lookup.kind]).toEqual(["read", "fetch"]);
    expect(hub.servers()).toEqual([{ name: "t", source: "config", state: "up", tools: expect.arrayContaining(["echo", "crash"]) }]);
  });

  test("structured content that does not keep to the tool's outputSchema, or is missing, is an error naming the tool and what is wrong", async () => {
    const { hub } = await startHub({}, "--off-schema");
    const off = await call(hub, "mcp__t__structured");
    expect(off.isError).toBe(true);
    expect(off.output).toStartWith('MCP tool "structured" of server "t" returned structured content that does not match its outputSchema:');
    expect(off.output).toContain("structuredContent/temperature must be number");
    expect(off.output).not.toContain("warm");
    const none = await call(hub, "mcp__t__no_structure");
    expect(none.isError).toBe(true);
    expect(none.output).toBe('MCP tool "no_structure" of server "t" declares an outputSchema but returned no structured content.');
    // A tool that keeps to it, on the same server: as before.
    expect((await call(hub, "mcp__t__echo", { text: "hi" })).output).toBe("echo: hi");
  });

  test("a call's text, image, structured content, resources and isError come back as the model sees them", async () => {
    const { hub } = await startHub();
    expect(await call(hub, "mcp__t__echo", { text: "hello" })).toEqual({ output: "echo: hello" });

    const seen = await call(hub, "mcp__t__image", {}, { vision: true });
    expect(seen.images).toEqual([{ mimeType: "image/png", data: PNG_BASE64, path: "mcp:t/image" }]);
    const blind = await call(hub, "mcp__t__image", {}, { vision: false });
    expect(blind.images).toBeUndefined();
    expect(blind.output).toContain("cannot see");

    const structured = await call(hub, "mcp__t__structured");
    expect(JSON.parse(structured.output)).toEqual({ temperature: 21, unit: "C" });
    expect(structured.isError).toBeUndefined();

    const resource = await call(hub, "mcp__t__resource");
    expect(resource.output).toContain("[resource note://one]\nthe note's text");
    expect(resource.output).toContain("[resource note://two (two): another note]");

    expect(await call(hub, "mcp__t__fail")).toEqual({ output: "it went wrong", isError: true });
  });

  test("a huge result is capped like a built-in's; one over the message limit is a tool error and a notice, and the server goes on", async () => {
    const { hub, notices } = await startHub({ maxMessageBytes: 1_000_000 });
    const long = await call(hub, "mcp__t__huge", { chars: 200_000 });
    expect(long.isError).toBeUndefined();
    expect(long.output.length).toBeLessThan(MAX_RESULT_CHARS + 200);
    expect(long.output).toContain("characters left out");

    // A call left waiting on the refused message would time the test out (the call limit is a minute).
    const over = await call(hub, "mcp__t__huge", { chars: 3_000_000 });
    expect(over.isError).toBe(true);
    expect(over.output).toContain("larger than 1 MB");
    expect(notices.join("\n")).toContain("larger than 1 MB");
    expect(await call(hub, "mcp__t__echo", { text: "still here" })).toEqual({ output: "echo: still here" });
  });

  test("a line that is not JSON fails the call waiting on it at once, with a notice", async () => {
    // A call left to its 10-minute limit would time the test out.
    const { hub, notices } = await startHub({ callMs: 600_000 });
    const result = await call(hub, "mcp__t__garbage");
    expect(result.isError).toBe(true);
    expect(result.output).toContain('sent a line that is not JSON: "this is not json"');
    expect(notices.some((n) => n.includes("not JSON"))).toBe(true);
    expect(await call(hub, "mcp__t__echo", { text: "after" })).toEqual({ output: "echo: after" });
  });

  test("a crash mid-call is a tool error naming the exit and the stderr; the next call restarts the server", async () => {
    const { hub, notices, tag } = await startHub();
    const [before] = hub.pids();
    const crashed = await call(hub, "mcp__t__crash");
    expect(crashed.isError).toBe(true);
    expect(crashed.output).toContain("exited with code 7");
    expect(crashed.output).toContain("crashing on purpose");
    expect(crashed.output).toContain("restarted at the next call");
    expect(hub.servers()[0]?.state).toBe("crashed");

    // Two calls at once after the crash share one restart.
    const again = await Promise.all([call(hub, "mcp__t__echo", { text: "again" }), call(hub, "mcp__t__echo", { text: "too" })]);
    expect(again).toEqual([{ output: "echo: again" }, { output: "echo: too" }]);
    expect(hub.pids()).toHaveLength(1);
    expect(hub.pids()[0]).not.toBe(before);
    expect(processesTagged(tag)).toEqual(hub.pids());
    expect(notices.filter((n) => n.includes("was restarted"))).toHaveLength(1);
  });

  test("calls that share a restart after a crash: the first one cancelled stops waiting, and the other still gets the server", async () => {
    const { hub, notices } = await startHub();
    expect((await call(hub, "mcp__t__crash")).isError).toBe(true);
    const first = new AbortController();
    const cancelled = call(hub, "mcp__t__echo", { text: "first" }, { signal: first.signal });
    const other = call(hub, "mcp__t__echo", { text: "other" });
    first.abort();
    expect(await cancelled).toEqual({ output: "The call was cancelled.", isError: true });
    expect(await other).toEqual({ output: "echo: other" });
    expect(hub.servers()[0]?.state).toBe("up");
    expect(notices.filter((n) => n.includes("was restarted"))).toHaveLength(1);
  });

  test("a server that crashes and cannot start again is down: its calls say so", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lembas-mcp-"));
    dirs.push(dir);
    const { hub } = await startHub({}, `--down-after-crash=${join(dir, "crashed")}`);
    expect((await call(hub, "mcp__t__crash")).isError).toBe(true);
    const next = await call(hub, "mcp__t__echo", { text: "x" });
    expect(next.isError).toBe(true);
    expect(next.output).toContain('MCP server "t" is down');
    expect(next.output).toContain("exited with code 3");
    const later = await call(hub, "mcp__t__echo", { text: "y" });
    expect(later.output).toContain("is down");
    expect(hub.servers()[0]?.state).toBe("down");
  });

  test("a call that hangs ends at the call's time limit, and the server is told to cancel it", async () => {
    const { hub } = await startHub({ callMs: 700 });
    const started = performance.now();
    const result = await call(hub, "mcp__t__hang");
    const took = performance.now() - started;
    // It waited for the limit; the sentence says the limit ended it (a call that was not ended would time the test out).
    expect(took).toBeGreaterThan(650);
    expect(result).toEqual({ output: 'MCP server "t" did not answer the hang call within 0.7 s; the call was cancelled.', isError: true });
    expect(JSON.parse((await call(hub, "mcp__t__stats")).output).cancelled).toBe(1);
  });

  test("cancelling the turn cancels the call (notifications/cancelled)", async () => {
    const { hub } = await startHub();
    const turn = new AbortController();
    const pending = call(hub, "mcp__t__hang", {}, { signal: turn.signal });
    await Bun.sleep(200);
    turn.abort();
    expect(await pending).toEqual({ output: "The call was cancelled.", isError: true });
    await Bun.sleep(100);
    expect(JSON.parse((await call(hub, "mcp__t__stats")).output).cancelled).toBe(1);
  });
});

describe("servers that do not start", () => {
  test("each is a problem with a sentence, within the start limit, while the others work", async () => {
    const tag = crypto.randomUUID();
    // A limit a bun server starts well within on a loaded machine (five start at once): 1.5 s was not, at load 30.
    const hub = new McpHub({ startMs: 5_000 });
    hubs.push(hub);
    // Each failure is said (mute's as its start limit reached); a start that waited on mute for good would time the test out.
    const problems = await hub.start(
      [
        stdioServer("good", tag),
        { name: "missing", source: "config", transport: { type: "stdio", command: "/nonexistent/mcp-server", args: [], env: {} } },
        stdioServer("quits", tag, "--exit-at-start"),
        stdioServer("mute", tag, "--no-initialize"),
        stdioServer("noisy", tag, "--garbage"),
      ],
      never,
    );
    const byServer = Object.fromEntries(problems.map((p) => [p.server, p.message]));
    expect(Object.keys(byServer).sort()).toEqual(["missing", "mute", "noisy", "quits"]);
    expect(byServer.missing).toContain('MCP server "missing" did not start: could not run "/nonexistent/mcp-server"');
    expect(byServer.quits).toContain("exited with code 3 before it answered");
    expect(byServer.quits).toContain("exiting at start as asked");
    expect(byServer.mute).toContain("did not answer within 5 s");
    expect(byServer.noisy).toContain('sent a line that is not JSON: "<<garbage>>"');
    expect(hub.tools().every((t) => t.name.startsWith("mcp__good__"))).toBe(true);
    expect(await call(hub, "mcp__good__echo", { text: "fine" })).toEqual({ output: "echo: fine" });
    // The ones that failed left nothing running.
    expect(processesTagged(tag)).toEqual(hub.pids());
  });

  test("a server named twice is used once, the other a problem", async () => {
    const tag = crypto.randomUUID();
    const hub = new McpHub();
    hubs.push(hub);
    const problems = await hub.start([stdioServer("t", tag), { ...stdioServer("t", tag), source: "project" }], never);
    expect(problems).toEqual([{ server: "t", message: 'MCP server "t" is named twice; only the first (from config) is used.' }]);
    expect(hub.pids()).toHaveLength(1);
  });
});

describe("stopping", () => {
  test("stop leaves no server process nor any it started, even with a call in flight", async () => {
    const { hub, tag } = await startHub({}, "--linger");
    await Bun.sleep(100);
    expect(processesTagged(tag)).toHaveLength(2);
    const pending = call(hub, "mcp__t__hang");
    await Bun.sleep(100);
    await hub.stop();
    expect((await pending).isError).toBe(true);
    expect(processesTagged(tag)).toEqual([]);
    expect(hub.tools()).toEqual([]);
  });

  test("a stop while servers start ends the start at once, and leaves nothing running", async () => {
    const tag = crypto.randomUUID();
    // A start limit of 10 minutes: a start the stop did not end would time the test out.
    const hub = new McpHub({ startMs: 600_000 });
    const starting = hub.start([stdioServer("mute", tag, "--no-initialize"), stdioServer("t", tag)], never);
    await Bun.sleep(150);
    await hub.stop();
    const problems = await starting;
    expect(problems.find((p) => p.server === "mute")?.message).toBe('MCP server "mute" did not start: it was stopped while it started');
    expect(hub.tools()).toEqual([]);
    expect(processesTagged(tag)).toEqual([]);
  });

  test("a process that exits without stopping its hub leaves no server behind", async () => {
    const tag = crypto.randomUUID();
    const script = `
      import { McpHub } from ${JSON.stringify(join(import.meta.dir, "../../src/mcp/hub.ts"))};
      import { stdioServer } from ${JSON.stringify(join(import.meta.dir, "servers.ts"))};
      const hub = new McpHub();
      const problems = await hub.start([stdioServer("t", ${JSON.stringify(tag)}, "--linger")], new AbortController().signal);
      console.log(JSON.stringify({ problems, pids: hub.pids() }));
      process.exit(0);
    `;
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const out = await new Response(child.stdout).text();
    expect(await child.exited).toBe(0);
    const { problems, pids } = JSON.parse(out) as { problems: unknown[]; pids: number[] };
    expect(problems).toEqual([]);
    expect(pids).toHaveLength(1);
    await Bun.sleep(200);
    expect(processesTagged(tag)).toEqual([]);
  });
});
