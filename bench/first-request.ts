// `lembas run "hi"` (the compiled binary) against the scripted model: exec → the first model request's
// arrival (its headers, stamped by the model before it reads the body), beside a compiled Bun
// hello-world's exec → exit built the same way (goal ≤ 5×); exec → its first contact with the model
// of any kind (a `GET /v1/models` counts); and the one-shot's peak RSS (goal ≤ 50 MB). Then the
// resident memory of an idle `lembas serve` and of an idle terminal (`lembas` in tmux, its first
// frame drawn), each after a second of rest (goal ≤ 60 MB each). One JSON line; `--runs N` (15).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../build.ts";
import { startModel } from "../test/support/model.ts";
import { LIMITS } from "./goals.ts";
import { benchHome } from "./bench-home.ts";

const GOAL = LIMITS.firstRequest;

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg === -1 ? 15 : Number(process.argv[runsArg + 1]);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const round = (n: number) => Math.round(n * 100) / 100;
const now = () => performance.timeOrigin + performance.now();

const dir = mkdtempSync(join(tmpdir(), "lembas-bench-first-"));
const model = await startModel({ fallback: { text: "hello" } });
try {
  const hello = join(dir, "hello.ts");
  writeFileSync(hello, 'console.log("hello");\n');
  const built = await Bun.build({ entrypoints: [hello], compile: { outfile: join(dir, "hello") }, minify: true, bytecode: true, format: "esm", splitting: true });
  if (!built.success) throw new Error("hello-world build failed");
  const lembas = process.env.LEMBAS_BIN ?? (await build(join(dir, "lembas")));

  const { project, env } = benchHome(dir, model.url, { "README.md": "# bench\n", "AGENTS.md": "Answer briefly.\n" });

  const helloTimes: number[] = [];
  const firstRequest: number[] = [];
  const firstContact: number[] = [];
  const peakRss: number[] = [];
  const oneShot = async () => {
    const before = model.requests.length;
    const listsBefore = model.modelListArrivals.length;
    const started = now();
    const proc = Bun.spawn([lembas, "run", "hi"], { cwd: project, env, stdout: "pipe", stderr: "pipe" });
    const code = await proc.exited;
    if (code !== 0) throw new Error(`lembas run exited ${code}: ${await new Response(proc.stderr).text()}`);
    const request = model.requests[before];
    if (!request) throw new Error("lembas run made no model request");
    const list = model.modelListArrivals[listsBefore];
    firstRequest.push(request.arrived - started);
    firstContact.push(Math.min(request.arrived, list ?? Infinity) - started);
  };
  // Its peak RSS, from GNU time (apart: the wrapper's own start would count in the timings).
  // Spawned, not spawnSync: the scripted model answers from this process's event loop.
  const oneShotRss = async () => {
    const out = join(dir, "time.txt");
    const proc = Bun.spawn(["/usr/bin/time", "-f", "%M", "-o", out, lembas, "run", "hi"], { cwd: project, env, stdout: "ignore", stderr: "pipe" });
    const code = await proc.exited;
    if (code !== 0) throw new Error(`lembas run exited ${code}: ${await new Response(proc.stderr).text()}`);
    peakRss.push(Number(readFileSync(out, "utf8").trim().split("\n").pop()) / 1024);
  };
  const helloRun = () => {
    const started = now();
    Bun.spawnSync([join(dir, "hello")]);
    helloTimes.push(now() - started);
  };
  for (let i = 0; i < 3; i++) {
    helloRun();
    await oneShot(); // warm the page cache and the state dir
  }
  helloTimes.length = firstRequest.length = firstContact.length = peakRss.length = 0;
  for (let i = 0; i < RUNS; i++) {
    helloRun();
    await oneShot();
    await oneShotRss();
  }

  const serveIdle = await idleRss([lembas, "serve"], project, env);
  const terminalIdle = await terminalRss(lembas, project, env, dir);
  const helloMs = median(helloTimes);
  const requestMs = median(firstRequest);
  console.log(
    JSON.stringify({
      bench: "first-request",
      runs: RUNS,
      load_avg: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
      hello_ms: round(helloMs),
      first_request_ms: round(requestMs),
      first_request_ratio: round(requestMs / helloMs),
      first_request_goal: GOAL.ratio,
      first_contact_ms: round(median(firstContact)),
      oneshot_peak_rss_mb: round(median(peakRss)),
      oneshot_peak_rss_goal_mb: GOAL.oneshot_rss_mb,
      serve_idle_rss_mb: round(serveIdle),
      serve_idle_goal_mb: GOAL.serve_idle_mb,
      terminal_idle_rss_mb: round(terminalIdle),
      terminal_idle_goal_mb: GOAL.terminal_idle_mb,
    }),
  );
} finally {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
}

/** RSS in MB of a pid, from /proc (0 once it is gone). */
function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

/** `lembas serve` started, left a second once its control socket is there, its RSS; then stopped. */
async function idleRss(cmd: string[], cwd: string, env: Record<string, string>): Promise<number> {
  const proc = Bun.spawn(cmd, { cwd, env, stdout: "ignore", stderr: "ignore" });
  try {
    const socket = join(env.LEMBAS_STATE_DIR ?? "", "service.sock");
    for (let i = 0; i < 400 && !existsSync(socket); i++) await Bun.sleep(25);
    if (!existsSync(socket)) throw new Error("lembas serve made no control socket in 10 s");
    await Bun.sleep(1000);
    return rssOf(proc.pid);
  } finally {
    proc.kill();
    await proc.exited;
  }
}

/** The terminal in tmux (its own socket), a second after its first frame: the RSS of the lembas process. */
async function terminalRss(lembas: string, cwd: string, env: Record<string, string>, base: string): Promise<number> {
  const socket = `lembas-bench-mem-${process.pid}`;
  const tmux = (...args: string[]) => Bun.spawnSync(["tmux", "-L", socket, ...args], { env: { ...process.env, ...env, TERM: "xterm-256color" } });
  const pidFile = join(base, "terminal.pid");
  tmux("new-session", "-d", "-x", "120", "-y", "40", "-c", cwd, `sh -c 'echo $$ > ${pidFile}; exec env ${Object.entries(env).filter(([k]) => k.startsWith("LEMBAS_") || k === "HOME").map(([k, v]) => `${k}=${v}`).join(" ")} TERM=xterm-256color ${lembas}'`);
  try {
    for (let i = 0; i < 200; i++) {
      const screen = tmux("capture-pane", "-p").stdout.toString();
      if (screen.includes("test-model")) break;
      await Bun.sleep(50);
    }
    await Bun.sleep(1000);
    return rssOf(Number(readFileSync(pidFile, "utf8").trim()));
  } finally {
    tmux("kill-server");
  }
}
