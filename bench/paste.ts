// A large bracketed paste into the terminal's prompt: lembas in tmux (120×40, its own tmux server,
// scripted model, throwaway dirs) against a linear floor, a raw reader of the same pane that finds
// the paste's end marker by looking only at each chunk as it comes (bench/paste-floor.ts). The text
// (log lines of about 100 bytes) is loaded into tmux's buffer first, then `paste-buffer -p` sends
// it as a terminal does (ESC[200~ … ESC[201~, written to the pty in the chunks it takes); timed
// from that command to the screen showing the paste folded (`[paste #1 +N lines]`; the floor's
// `got N lines`), with the CPU the app's process spent meanwhile (/proc, utime + stime).
//
//   bun bench/paste.ts [--sizes 1,10] [--rounds 3] [--app lembas|floor|both]
//
// Prints one JSON line: for each size in MB, each app's MB/s (median of the rounds), its wall and
// CPU ms, and lembas's MB/s ÷ the floor's (`ratio`; goal at 10 MB, bench/goals.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startModel } from "../test/support/model.ts";
import { LIMITS } from "./goals.ts";
import { ENTRY, projectSandbox } from "../test/support/run.ts";

const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
};
const SIZES = (flag("--sizes") ?? "1,10").split(",").map(Number);
const ROUNDS = Number(flag("--rounds") ?? 3);
const APPS = (flag("--app") ?? "both") === "both" ? (["lembas", "floor"] as const) : ([flag("--app")] as ("lembas" | "floor")[]);
const FLOOR = join(import.meta.dir, "paste-floor.ts");
const TICK_MS = 10; // USER_HZ: /proc's utime and stime count hundredths of a second
const log = (line: string) => process.stderr.write(`${line}\n`);
const shq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Log lines, about `mb` MB, no line break at the end; its line count. */
function logText(mb: number): { text: string; lines: number } {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < mb * 1_000_000; i++) {
    const line = `2026-12-07T02:${String(i % 60).padStart(2, "0")}:00.${String(i % 1000).padStart(3, "0")}Z INFO worker-${i % 7} handled request #${i} in ${i % 97} ms: ok`;
    lines.push(line);
    size += line.length + 1;
  }
  return { text: lines.join("\n"), lines: lines.length };
}

function tmux(socket: string, args: string[], env?: Record<string, string>): string {
  const res = Bun.spawnSync(["tmux", "-L", socket, "-f", "/dev/null", ...args], { env, stdout: "pipe", stderr: "pipe" });
  if (res.exitCode !== 0) throw new Error(`tmux ${args[0]}: ${res.stderr.toString().trim()}`);
  return res.stdout.toString();
}

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function until(socket: string, what: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!tmux(socket, ["capture-pane", "-p", "-t", "bench"]).includes(what)) {
    if (Date.now() > end) throw new Error(`the screen never showed ${what} in ${timeoutMs} ms:\n${tmux(socket, ["capture-pane", "-p", "-t", "bench"])}`);
    await Bun.sleep(5);
  }
}

type Run = { wallMs: number; cpuMs: number };
let servers = 0;

async function pasteOnce(app: "lembas" | "floor", file: string, lines: number, modelUrl: string): Promise<Run> {
  const box = projectSandbox(modelUrl);
  const socket = `lembas-paste-${process.pid}-${++servers}`;
  const env = { ...(process.env as Record<string, string>), ...box.env, TERM: "xterm-256color" };
  const command = app === "lembas" ? [process.execPath, ENTRY] : [process.execPath, FLOOR];
  try {
    tmux(socket, ["new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", "-c", box.project, `exec ${command.map(shq).join(" ")}`], env);
    const pid = Number(tmux(socket, ["display-message", "-p", "-t", "bench", "#{pane_pid}"]).trim());
    await until(socket, app === "lembas" ? "test-model" : "ready", 20_000);
    await Bun.sleep(1000);
    tmux(socket, ["load-buffer", "-b", "big", file]);
    const cpu0 = cpuMs(pid);
    const t0 = performance.now();
    tmux(socket, ["paste-buffer", "-p", "-b", "big", "-t", "bench"]);
    await until(socket, app === "lembas" ? `[paste #1 +${lines} lines]` : `got ${lines} lines`, 300_000);
    const wallMs = performance.now() - t0;
    return { wallMs, cpuMs: cpuMs(pid) - cpu0 };
  } finally {
    Bun.spawnSync(["tmux", "-L", socket, "kill-server"], { stdout: "ignore", stderr: "ignore" });
    rmSync(box.dir, { recursive: true, force: true });
  }
}

const model = await startModel();
const dir = mkdtempSync(join(tmpdir(), "lembas-paste-bench-"));
const result: Record<string, Record<string, number>> = {};
try {
  for (const mb of SIZES) {
    const { text, lines } = logText(mb);
    const file = join(dir, `paste-${mb}`);
    writeFileSync(file, text);
    const figures: Record<string, number> = {};
    for (const app of APPS) {
      const runs: Run[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const run = await pasteOnce(app, file, lines, model.url);
        log(`${mb} MB ${app}: ${Math.round(run.wallMs)} ms wall, ${run.cpuMs} ms CPU`);
        runs.push(run);
      }
      const wall = median(runs.map((r) => r.wallMs));
      figures[`${app}_mb_s`] = round(text.length / 1e6 / (wall / 1000));
      figures[`${app}_wall_ms`] = Math.round(wall);
      figures[`${app}_cpu_ms`] = median(runs.map((r) => r.cpuMs));
    }
    if (figures.lembas_mb_s !== undefined && figures.floor_mb_s !== undefined) figures.ratio = round(figures.lembas_mb_s / figures.floor_mb_s);
    result[`${mb}mb`] = figures;
  }
} finally {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
}
const load = readFileSync("/proc/loadavg", "utf8").split(" ")[0];
console.log(JSON.stringify({ bench: "paste", rounds: ROUNDS, load: Number(load), goal_ratio: LIMITS.paste.ratio, ...result }));
