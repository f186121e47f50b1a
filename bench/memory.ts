// The resident memory of an idle `lembas serve` (no login, no session) and of an idle terminal
// (`lembas` in tmux, a second after its first frame), each started `--runs N` times (5), with where
// it lies: the binary's own pages (Bun's code and the embedded program), other files (libc…), and
// anonymous memory (the JS heap, malloc, the JIT's code). Goals ≤ 60 MB each, the figures
// `bench/first-request.ts` holds too. One JSON line; ranges over the runs. The compiled binary is
// built first unless LEMBAS_BIN names one (memory is compared within one build: two builds of the
// same source differ by a few MB of how the page cache holds the file).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../build.ts";
import { startModel } from "../test/support/model.ts";
import { LIMITS } from "./goals.ts";
import { benchHome, tmuxOn, untilFirstFrame, untilServing } from "./bench-home.ts";

const GOAL = LIMITS.firstRequest;
const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg === -1 ? 5 : Number(process.argv[runsArg + 1]);
const round = (n: number) => Math.round(n * 10) / 10;

/** Where a process's resident memory lies, in MB, from /proc/PID/smaps. */
type Split = { rss: number; binary: number; files: number; anon: number };

function splitOf(pid: number, binary: string): Split {
  const split: Split = { rss: 0, binary: 0, files: 0, anon: 0 };
  let where: keyof Split = "anon";
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      const path = header[1] ?? "";
      where = path === binary ? "binary" : path.startsWith("/") ? "files" : "anon";
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (!rss) continue;
    const mb = Number(rss[1]) / 1024;
    split[where] += mb;
    split.rss += mb;
  }
  return split;
}

const dir = mkdtempSync(join(tmpdir(), "lembas-bench-mem-"));
const model = await startModel({ fallback: { text: "hello" } });
try {
  const lembas = process.env.LEMBAS_BIN ?? (await build(join(dir, "lembas")));
  const { project, env } = benchHome(dir, model.url, { "README.md": "# bench\n" });

  const serve: Split[] = [];
  const terminal: Split[] = [];
  for (let i = 0; i < RUNS; i++) {
    serve.push(await serveIdle(lembas, project, env));
    terminal.push(await terminalIdle(lembas, project, env, dir));
  }
  const range = (xs: Split[], key: keyof Split) => {
    const values = xs.map((x) => x[key]).sort((a, b) => a - b);
    return [round(values[0] ?? NaN), round(values[values.length - 1] ?? NaN)];
  };
  const figures = (xs: Split[]) => ({ rss_mb: range(xs, "rss"), binary_mb: range(xs, "binary"), files_mb: range(xs, "files"), anon_mb: range(xs, "anon") });
  const median = (xs: Split[]) => [...xs.map((x) => x.rss)].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  console.log(
    JSON.stringify({
      bench: "memory",
      runs: RUNS,
      load_avg: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
      serve_idle_rss_mb: round(median(serve)),
      serve_idle_goal_mb: GOAL.serve_idle_mb,
      terminal_idle_rss_mb: round(median(terminal)),
      terminal_idle_goal_mb: GOAL.terminal_idle_mb,
      serve: figures(serve),
      terminal: figures(terminal),
    }),
  );
} finally {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
}

/** `lembas serve` started, left a second once its control socket is there; then stopped. */
async function serveIdle(lembas: string, cwd: string, env: Record<string, string>): Promise<Split> {
  const proc = Bun.spawn([lembas, "serve"], { cwd, env, stdout: "ignore", stderr: "ignore" });
  try {
    await untilServing(env);
    return splitOf(proc.pid, lembas);
  } finally {
    proc.kill();
    await proc.exited;
  }
}

/** The terminal in tmux (its own socket), a second after its first frame. */
async function terminalIdle(lembas: string, cwd: string, env: Record<string, string>, base: string): Promise<Split> {
  const tmux = tmuxOn(`lembas-bench-memory-${process.pid}`, env);
  const pidFile = join(base, "terminal.pid");
  const vars = Object.entries(env).filter(([k]) => k.startsWith("LEMBAS_") || k === "HOME").map(([k, v]) => `${k}=${v}`).join(" ");
  tmux("new-session", "-d", "-x", "120", "-y", "40", "-c", cwd, `sh -c 'echo $$ > ${pidFile}; exec env ${vars} TERM=xterm-256color ${lembas}'`);
  try {
    await untilFirstFrame(tmux);
    return splitOf(Number(readFileSync(pidFile, "utf8").trim()), lembas);
  } finally {
    tmux("kill-server");
  }
}
