// `lembas serve --stdio` (the compiled binary) beside a minimal echo agent on the same SDK,
// compiled the same way: spawn → initialize answered, and session/new + prompt → the first
// agent_message_chunk (lembas through the scripted model on loopback). One JSON line; goal ≤ 1.3×.
// The same is measured again for a second session in the same process ("warm"): what the path
// costs once its code has run, beside what a fresh process pays. And once more with `lembas serve`
// running ("service"): the stdio process hands its sessions to the service's warm engine over the
// control socket; goal: its first chunk within 1.5× of the echo agent's. Then a session/new with
// one stdio MCP server (test/support/mcp-server.ts) → first chunk, beside that server's own start
// (spawn → initialize answered → tools listed, measured directly): what the server adds to the first
// chunk is its start, and little more. Last, session/load of a 200-turn session written into the
// store (bench/session-load.ts): the time from the request to the last replayed update (goal under
// 100 ms) and the process's peak RSS, beside the same for 2,000 and 6,000 turns: from 2,000 to
// 6,000 the RSS may grow by the texts' bytes, no more.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../build.ts";
import { startModel } from "../test/support/model.ts";
import { loadFigures } from "./session-load.ts";

const RUNS = Number(process.env.ACP_BENCH_RUNS ?? 15);
/** `--start-only`: spawn → initialize and the first chunks (alone and through the service), without the MCP and session/load parts. */
const START_ONLY = process.argv.includes("--start-only");
const MCP_RUNS = 7;
const LOAD_RUNS = 7;
const LONG_LOAD_RUNS = 3;
const dir = mkdtempSync(join(tmpdir(), "lembas-bench-acp-"));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const round = (n: number) => Math.round(n * 100) / 100;

/** ms: spawn → initialize answered; session/new sent → answered, and → the prompt's first chunk; the same for a second session. */
type Timing = { initialize: number; newAnswered: number; firstChunk: number; warmChunk: number };

/** The test MCP server as session/new names it, started with the same bun as this bench. */
const MCP_SERVER = { name: "notes", command: process.execPath, args: [join(import.meta.dir, "../test/support/mcp-server.ts")], env: [] };

async function measure(cmd: string[], env: Record<string, string>, cwd: string, mcpServers: object[] = []): Promise<Timing> {
  const started = performance.now();
  const proc = Bun.spawn(cmd, { env, cwd, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  const decoder = new TextDecoder();
  const reader = proc.stdout.getReader();
  let buffer = "";
  const next = async (match: (message: Record<string, unknown>) => boolean): Promise<void> => {
    for (;;) {
      let nl = buffer.indexOf("\n");
      while (nl !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line && match(JSON.parse(line) as Record<string, unknown>)) return;
        nl = buffer.indexOf("\n");
      }
      const { done, value } = await reader.read();
      if (done) throw new Error(`${cmd[0]} ended early`);
      buffer += decoder.decode(value, { stream: true });
    }
  };
  const send = (message: object) => {
    proc.stdin.write(`${JSON.stringify(message)}\n`);
    void proc.stdin.flush();
  };
  send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
  await next((m) => m.id === 1);
  const initialize = performance.now() - started;
  /** session/new, then a prompt: the time to its first agent_message_chunk. */
  const turn = async (id: number): Promise<{ took: number; answered: number }> => {
    const started = performance.now();
    send({ jsonrpc: "2.0", id, method: "session/new", params: { cwd, mcpServers } });
    let sessionId = "";
    await next((m) => {
      if (m.id !== id) return false;
      sessionId = (m.result as { sessionId: string }).sessionId;
      return true;
    });
    const answered = performance.now() - started;
    send({ jsonrpc: "2.0", id: id + 1, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "hi" }] } });
    await next((m) => m.method === "session/update" && JSON.stringify(m).includes("agent_message_chunk"));
    const took = performance.now() - started;
    await next((m) => m.id === id + 1);
    return { took, answered };
  };
  const first = await turn(2);
  await Bun.sleep(50); // the first session's title call, and anything else it set going, are over
  const warm = await turn(4);
  proc.stdin.end();
  await proc.exited;
  return { initialize, newAnswered: first.answered, firstChunk: first.took, warmChunk: warm.took };
}

/** The test MCP server on its own: spawn → initialize answered → tools/list answered. */
async function serverStart(): Promise<number> {
  const started = performance.now();
  const proc = Bun.spawn([MCP_SERVER.command, ...MCP_SERVER.args], { stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const answer = async (id: number) => {
    for (;;) {
      for (const line of buffer.split("\n").slice(0, -1)) if (line && (JSON.parse(line) as { id?: number }).id === id) return;
      const { done, value } = await reader.read();
      if (done) throw new Error("the MCP server ended early");
      buffer += decoder.decode(value, { stream: true });
    }
  };
  const send = (message: object) => {
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    void proc.stdin.flush();
  };
  send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } });
  await answer(1);
  send({ method: "notifications/initialized" });
  send({ id: 2, method: "tools/list", params: {} });
  await answer(2);
  const took = performance.now() - started;
  proc.kill();
  await proc.exited;
  return took;
}

/**
 * The start-up figures: medians, and each fresh run's initialize against the echo run that
 * followed it (the goal holds for every run, not only the median).
 */
function startFigures(ours: Timing[], base: Timing[], served: Timing[]) {
  const oi = median(ours.map((t) => t.initialize));
  const bi = median(base.map((t) => t.initialize));
  const of = median(ours.map((t) => t.firstChunk));
  const bf = median(base.map((t) => t.firstChunk));
  const ow = median(ours.map((t) => t.warmChunk));
  const bw = median(base.map((t) => t.warmChunk));
  const si = median(served.map((t) => t.initialize));
  const sf = median(served.map((t) => t.firstChunk));
  const paired = ours.map((t, i) => t.initialize / (base[i]?.initialize ?? NaN)).sort((a, b) => a - b);
  return {
    bench: "acp-stdio",
    runs: RUNS,
    lembas_initialize_ms: round(oi),
    echo_initialize_ms: round(bi),
    initialize_ratio: round(oi / bi),
    initialize_ratio_runs: [round(paired[0] ?? NaN), round(paired[paired.length - 1] ?? NaN)],
    lembas_new_answered_ms: round(median(ours.map((t) => t.newAnswered))),
    echo_new_answered_ms: round(median(base.map((t) => t.newAnswered))),
    lembas_first_chunk_ms: round(of),
    echo_first_chunk_ms: round(bf),
    first_chunk_ratio: round(of / bf),
    // What an editor that sends session/new at once waits in all: spawn → the first chunk.
    lembas_spawn_to_first_chunk_ms: round(median(ours.map((t) => t.initialize + t.firstChunk))),
    echo_spawn_to_first_chunk_ms: round(median(base.map((t) => t.initialize + t.firstChunk))),
    spawn_to_first_chunk_ratio: round(median(ours.map((t) => t.initialize + t.firstChunk)) / median(base.map((t) => t.initialize + t.firstChunk))),
    lembas_warm_first_chunk_ms: round(ow),
    echo_warm_first_chunk_ms: round(bw),
    service_initialize_ms: round(si),
    service_first_chunk_ms: round(sf),
    service_first_chunk_ratio: round(sf / bf),
  };
}

try {
  const echo = join(dir, "echo-agent");
  const built = await Bun.build({
    entrypoints: [join(import.meta.dir, "fixtures/echo-agent.ts")],
    compile: { outfile: echo },
    minify: true,
    bytecode: true,
    format: "esm",
    splitting: true,
  });
  if (!built.success) throw new Error("echo agent build failed");
  const lembas = process.env.LEMBAS_BIN ?? (await build(join(dir, "lembas")));

  const model = await startModel({ fallback: { text: "hello" } });
  const project = join(dir, "project");
  mkdirSync(join(dir, "config"), { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(dir, "config", "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n`);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, LEMBAS_CONFIG_DIR: join(dir, "config"), LEMBAS_STATE_DIR: join(dir, "state") };

  const ours: Timing[] = [];
  const base: Timing[] = [];
  const served: Timing[] = [];
  const alone = { ...env, LEMBAS_STDIO_OWN_ENGINE: "1" };
  for (let i = 0; i < 2; i++) {
    await measure([lembas, "serve", "--stdio"], alone, project);
    await measure([echo], env, project);
  }
  for (let i = 0; i < RUNS; i++) {
    ours.push(await measure([lembas, "serve", "--stdio"], alone, project));
    base.push(await measure([echo], env, project));
  }
  // The service, started once and given its first sessions before the runs (it is a warm process by design).
  const service = Bun.spawn([lembas, "serve"], { env, cwd: dir, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  try {
    const socket = join(dir, "state", "service.sock");
    for (let i = 0; !existsSync(socket); i++) {
      if (i > 500) throw new Error("the service did not start");
      await Bun.sleep(10);
    }
    for (let i = 0; i < 2; i++) await measure([lembas, "serve", "--stdio"], env, project);
    for (let i = 0; i < RUNS; i++) {
      served.push(await measure([lembas, "serve", "--stdio"], env, project));
      base.push(await measure([echo], env, project));
    }
  } finally {
    service.kill("SIGTERM");
    await service.exited;
  }
  if (START_ONLY) {
    await model.close();
    console.log(JSON.stringify(startFigures(ours, base, served)));
    process.exit(0);
  }
  const withServer: Timing[] = [];
  const serverAlone: number[] = [];
  await measure([lembas, "serve", "--stdio"], alone, project, [MCP_SERVER]);
  await serverStart();
  for (let i = 0; i < MCP_RUNS; i++) {
    withServer.push(await measure([lembas, "serve", "--stdio"], alone, project, [MCP_SERVER]));
    serverAlone.push(await serverStart());
  }
  const load = await loadFigures([lembas, "serve", "--stdio"], alone, join(dir, "state"), project, LOAD_RUNS, LONG_LOAD_RUNS);
  await model.close();
  const mf = median(withServer.map((t) => t.firstChunk));
  const ms = median(serverAlone);
  console.log(
    JSON.stringify({
      ...startFigures(ours, base, served),
      mcp_runs: MCP_RUNS,
      mcp_first_chunk_ms: round(mf),
      mcp_server_start_ms: round(ms),
      mcp_added_beyond_server_ms: round(mf - median(ours.map((t) => t.firstChunk)) - ms),
      ...load,
      goal: 1.3,
      service_goal: 1.5,
      load_goal_ms: 100,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
