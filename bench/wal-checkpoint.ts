// Where the store's WAL checkpoints happen while `serve --stdio` serves many sessions in a row
// (bench/START.md): one stdio process from source, a store on disk (not tmpfs: an fsync must cost
// what it costs), the scripted model on loopback in this process, `strace` on the process's fsyncs.
// Each session: session/new, one prompt, its first chunk, its end; every `--pause-every` sessions a
// pause of `--pause-ms` (a person reading). One JSON line: session/new → first chunk (median, p99,
// the five worst), the sessions with an fsync between their session/new and first chunk and those fsyncs' times, the WAL's
// largest size, and its frames not yet in the database at the end.
//   bun bench/wal-checkpoint.ts [--sessions N] [--pause-every K] [--pause-ms MS] [--no-strace]
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { walFrames } from "../src/store/wal-frames.ts";
import { startModel } from "../test/support/model.ts";

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const SESSIONS = arg("--sessions", 300);
const PAUSE_EVERY = arg("--pause-every", 10);
const PAUSE_MS = arg("--pause-ms", 1500);
const WARM = 3;
const STRACE = !process.argv.includes("--no-strace");
// LEMBAS_ROOT: another checkout of lembas to run (a copy of main, to compare).
const ROOT = process.env.LEMBAS_ROOT ?? join(import.meta.dir, "..");
const dir = mkdtempSync(join("/var/tmp", "lembas-bench-wal-"));
const now = () => performance.timeOrigin + performance.now();

try {
  const model = await startModel({ fallback: { text: "hello" } });
  const project = join(dir, "project");
  mkdirSync(join(dir, "config"), { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(dir, "config", "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n`);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, LEMBAS_CONFIG_DIR: join(dir, "config"), LEMBAS_STATE_DIR: join(dir, "state") };
  const db = join(dir, "state", "lembas.db");
  const trace = join(dir, "fsyncs.txt");
  const lembas = [process.execPath, join(ROOT, "src/index.ts"), "serve", "--stdio"];
  // The process's messages in and out are traced too: whether an fsync falls between a session/new
  // read and that session's first chunk written is read in the trace's own order (its timestamps
  // lag on a busy machine: strace takes them when it gets to the stop).
  const traced = "trace=fsync,fdatasync,read,recvfrom,write,sendto";
  const command = STRACE ? ["strace", "-f", "-ttt", "-T", "-s", "300", "-e", traced, "-o", trace, ...lembas] : lembas;
  const proc = Bun.spawn(command, { env, cwd: project, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
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
  let id = 0;
  const ask = async (method: string, params: object) => {
    const sent = ++id;
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: sent, method, params })}\n`);
    void proc.stdin.flush();
    return sent;
  };
  const isChunk = (m: Record<string, unknown>) =>
    m.method === "session/update" && (m.params as { update: { sessionUpdate: string } }).update.sessionUpdate === "agent_message_chunk";

  const initialize = await ask("initialize", { protocolVersion: 1, clientCapabilities: {} });
  await next((m) => m.id === initialize);
  const windows: { from: number; to: number }[] = [];
  let walMax = 0;
  const walSize = () => {
    try {
      return statSync(`${db}-wal`).size;
    } catch {
      return 0;
    }
  };
  for (let i = 0; i < SESSIONS; i++) {
    if (i > 0 && PAUSE_EVERY > 0 && i % PAUSE_EVERY === 0) await Bun.sleep(PAUSE_MS);
    const from = now();
    const made = await ask("session/new", { cwd: project, mcpServers: [] });
    const { sessionId } = (await next((m) => m.id === made)).result as { sessionId: string };
    const prompt = await ask("session/prompt", { sessionId, prompt: [{ type: "text", text: `hi ${i}` }] });
    await next(isChunk);
    windows.push({ from, to: now() });
    await next((m) => m.id === prompt);
    walMax = Math.max(walMax, walSize());
  }
  await Bun.sleep(PAUSE_MS);
  const pending = walFrames(db);
  proc.stdin.end();
  await proc.exited;
  await model.close();

  // The first sessions make the store and load the modules a turn needs: not the steady state.
  windows.splice(0, WARM);
  const spans = windows.map((w) => w.to - w.from);
  const sorted = [...spans].sort((a, b) => a - b);
  const at = (q: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN) * 100) / 100;
  type Fsync = { ms: number; during: boolean };
  const fsyncs: Fsync[] = [];
  let hit = 0;
  let open: Fsync[] | null = null;
  let made = 0;
  for (const line of STRACE ? readFileSync(trace, "utf8").split("\n") : []) {
    const sync = /^\d+\s+\d+\.\d+ f(?:data)?sync\(\d+\).*<(\d+\.\d+)>$/.exec(line);
    if (sync) {
      const f = { ms: Number(sync[1]) * 1000, during: open !== null };
      fsyncs.push(f);
      open?.push(f);
    } else if (/ (?:read|recvfrom)\(/.test(line) && line.includes('\\"method\\":\\"session/new\\"')) {
      // Not the first sessions', as above.
      open = ++made > WARM ? [] : null;
    } else if (open && / (?:write|sendto)\(/.test(line) && line.includes("agent_message_chunk")) {
      if (open.length > 0) hit++;
      open = null;
    }
  }
  const round = (x: number) => Math.round(x * 10) / 10;
  console.log(
    JSON.stringify({
      bench: "wal-checkpoint",
      sessions: SESSIONS,
      pause: `${PAUSE_MS} ms every ${PAUSE_EVERY}`,
      first_chunk_ms: { p50: at(0.5), p90: at(0.9), p99: at(0.99), worst5: sorted.slice(-5).reverse().map((x) => Math.round(x * 10) / 10) },
      fsyncs: fsyncs.length,
      fsync_ms_total: round(fsyncs.reduce((s, f) => s + f.ms, 0)),
      sessions_with_fsync_before_chunk: hit,
      their_fsync_ms: fsyncs.filter((f) => f.during).map((f) => round(f.ms)),
      wal_max_kb: Math.round(walMax / 1024),
      wal_after_pause: pending,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
