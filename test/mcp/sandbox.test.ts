import { afterAll, afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpHub } from "../../src/mcp/hub.ts";
import { sandboxedServers } from "../../src/mcp/sandboxed.ts";
import type { McpServerSpec } from "../../src/mcp/spec.ts";
import { findSandbox } from "../../src/tools/sandbox.ts";
import { cleanupTempDirs, makeContext } from "../tools/context.ts";
import { type EngineHarness, engineHarness, ofType, step } from "../support/engine.ts";
import { ROOT } from "../support/run.ts";
import { processesTagged } from "./processes.ts";
import { bwrapSandbox } from "../support/tools.ts";

const SERVER = join(ROOT, "test/support/mcp-server.ts");
const bwrap = bwrapSandbox("the MCP sandbox tests");

afterAll(cleanupTempDirs);

let h: EngineHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

test.skipIf(!bwrap)("a session's stdio server runs in the tools' sandbox: the state dir is out of its sight, the project is not; stopping it leaves no process", async () => {
  const tag = `sandbox-${crypto.randomUUID()}`;
  h = await engineHarness({ mcp: true, config: { mcp: { notes: { command: process.execPath, args: [SERVER, "--linger", `--tag=${tag}`] } } } });
  const db = join(h.box.stateDir, "lembas.db");
  writeFileSync(join(h.project, "notes.txt"), "a project file");
  // auto: read_file is of the exec class, and would be asked.
  const session = await h.session({ mode: "auto" });
  h.model.push(
    step({ toolCalls: [{ id: "db", name: "mcp__notes__read_file", arguments: { path: db } }] }),
    step({ toolCalls: [{ id: "mine", name: "mcp__notes__read_file", arguments: { path: join(h.project, "notes.txt") } }] }),
    step({ text: "ok" }),
  );
  await session.prompt({ text: "read them" });
  const ends = ofType(h.events(session), "tool_end");
  expect(ends.map((e) => e.output)).toEqual([`${db} does not exist`, `${join(h.project, "notes.txt")}: "a project file"`]);
  expect(ofType(h.events(session), "notice").map((n) => n.message)).toEqual([]);

  // The server, its child and bwrap's processes go with the session.
  expect(processesTagged(tag).length).toBeGreaterThan(1);
  await h.engine.release(session.id);
  expect(processesTagged(tag)).toEqual([]);
}, 30_000);

test.skipIf(!bwrap)("a sandboxed server that does not start still has its stderr in the notice", async () => {
  h = await engineHarness({ mcp: true, config: { mcp: { broken: { command: process.execPath, args: [SERVER, "--exit-at-start"] } } } });
  const session = await h.session();
  h.model.push(step({ text: "ok" }));
  await session.prompt({ text: "hi" });
  const notices = ofType(h.events(session), "notice").map((n) => n.message);
  expect(notices.join("\n")).toContain('MCP server "broken" did not start: it exited with code 3 before it answered');
  expect(notices.join("\n")).toContain("mcp-server: exiting at start as asked");
}, 30_000);

test("where no sandbox can start, a server runs as it is, and bash's notice is said once", async () => {
  const dir = mkdtempSync(join(tmpdir(), "lembas-mcp-nosandbox-"));
  const state = join(dir, "state");
  mkdirSync(state);
  writeFileSync(join(state, "lembas.db"), "the-device-token");
  const notices: string[] = [];
  const why = `no user namespaces here ${crypto.randomUUID()}`;
  const wrap = sandboxedServers({ hidden: [state], root: dir, env: {}, notice: (m) => notices.push(m), tool: { kind: "none", why, broken: true } });
  const hub = new McpHub({ wrap, cwd: dir });
  try {
    expect(await hub.start([stdioSpec("one"), stdioSpec("two")], AbortSignal.timeout(10_000))).toEqual([]);
    const read = hub.tools().find((t) => t.name === "mcp__one__read_file");
    if (!read) throw new Error("no mcp__one__read_file");
    const result = await read.execute(read.schema.parse({ path: join(state, "lembas.db") }), makeContext({}).ctx);
    expect(result?.output).toBe(`${join(state, "lembas.db")}: "the-device-token"`);
    expect(notices).toEqual([sayOnceText(why)]);
  } finally {
    await hub.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);

const stdioSpec = (name: string): McpServerSpec => ({ name, source: "config", transport: { type: "stdio", command: process.execPath, args: [SERVER], env: {} } });

/** The sentence bash says (src/tools/sandbox.ts's sayOnce), for a reason it has not said yet. */
const sayOnceText = (why: string) => `Commands run without the sandbox (${why}): they can read lembas's config and state dirs, the device tokens too.`;
