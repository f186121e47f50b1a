// Where session/new → first chunk goes when `lembas serve` runs and an editor's `serve --stdio`
// relays to it (bench/START.md): the compiled binary, a fresh stdio process a run as an editor
// starts it, the scripted model on loopback in this process. One JSON line of medians with their
// quartiles: session/new answered, the answer → the model request's headers at the model, the
// request → the first chunk read here, the whole; and the CPU (/proc/<pid>/schedstat, from the
// initialize answer to the first chunk) of the stdio process and of the service.
//   bun bench/service-path.ts [--runs N]   (LEMBAS_BIN=<binary> to measure one already built)
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../build.ts";
import { startModel } from "../test/support/model.ts";

const at = process.argv.indexOf("--runs");
const RUNS = at === -1 ? 30 : Number(process.argv[at + 1]);
const WARM_RUNS = 3;
const dir = mkdtempSync(join(tmpdir(), "lembas-bench-service-path-"));
const now = () => performance.timeOrigin + performance.now();
const cpuMs = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
type Row = { new_answered: number; answer_to_request: number; request_to_chunk: number; total: number; stdio_cpu: number; service_cpu: number };

try {
  const lembas = process.env.LEMBAS_BIN ?? (await build(join(dir, "lembas")));
  const model = await startModel({ fallback: { text: "hello" } });
  const project = join(dir, "project");
  mkdirSync(join(dir, "config"), { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(dir, "config", "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n`);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, LEMBAS_CONFIG_DIR: join(dir, "config"), LEMBAS_STATE_DIR: join(dir, "state") };
  const service = Bun.spawn([lembas, "serve"], { env, cwd: dir, stdin: "ignore", stdout: "ignore", stderr: "ignore" });

  const run = async (): Promise<Row> => {
    const proc = Bun.spawn([lembas, "serve", "--stdio"], { env, cwd: project, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
    const reader = proc.stdout.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    const next = async (match: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
      for (;;) {
        for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          const message = line ? (JSON.parse(line) as Record<string, unknown>) : null;
          if (message && match(message)) return message;
        }
        const { done, value } = await reader.read();
        if (done) throw new Error("serve --stdio ended early");
        buffer += decoder.decode(value, { stream: true });
      }
    };
    const send = (message: object) => {
      proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
      void proc.stdin.flush();
    };
    send({ id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    await next((m) => m.id === 1);
    const cpu = { stdio: cpuMs(proc.pid), service: cpuMs(service.pid) };
    const asked = model.requests.length;
    const started = now();
    send({ id: 2, method: "session/new", params: { cwd: project, mcpServers: [] } });
    const { sessionId } = (await next((m) => m.id === 2)).result as { sessionId: string };
    const answered = now();
    send({ id: 3, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "hi" }] } });
    await next((m) => m.method === "session/update" && (m.params as { update: { sessionUpdate: string } }).update.sessionUpdate === "agent_message_chunk");
    const chunk = now();
    const row = { stdio_cpu: cpuMs(proc.pid) - cpu.stdio, service_cpu: cpuMs(service.pid) - cpu.service };
    const request = model.requests[asked]?.arrived ?? Number.NaN;
    await next((m) => m.id === 3);
    proc.stdin.end();
    await proc.exited;
    return { new_answered: answered - started, answer_to_request: request - answered, request_to_chunk: chunk - request, total: chunk - started, ...row };
  };

  try {
    for (let i = 0; !existsSync(join(dir, "state", "service.sock")); i++) {
      if (i > 500) throw new Error("the service did not start");
      await Bun.sleep(10);
    }
    for (let i = 0; i < WARM_RUNS; i++) await run();
    const rows: Row[] = [];
    for (let i = 0; i < RUNS; i++) rows.push(await run());
    const quartiles = (key: keyof Row) => {
      const xs = rows.map((r) => r[key]).sort((a, b) => a - b);
      return [0.25, 0.5, 0.75].map((q) => Math.round((xs[Math.floor(xs.length * q)] ?? Number.NaN) * 100) / 100);
    };
    const keys = Object.keys(rows[0] ?? {}) as (keyof Row)[];
    console.log(JSON.stringify({ bench: "service-path", runs: RUNS, ...Object.fromEntries(keys.map((k) => [`${k}_ms`, quartiles(k)])) }));
  } finally {
    service.kill("SIGTERM");
    await service.exited;
    await model.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
