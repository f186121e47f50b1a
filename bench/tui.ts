// lembas's interactive terminal UI beside a bare pi-tui app with the same widgets
// (bench/tui-bare.ts), in the same run, interleaved, medians over the rounds. Each app runs in
// tmux at 120×40, in its own tmux server, with its own scripted model and throwaway dirs.
// Measured, for an empty transcript and for one of 5,000 lines:
// - first frame: the app's exec until `test/test-model` (the status bar) is on the screen
//   (capture-pane polled every few ms); each round launches each app twice more per case for
//   this figure alone. The pane's shell waits on `read` until the bench sends
//   Enter, so tmux's own start-up is not counted; the tmux client that sends the Enter is.
// - key to screen: the prompt typed one key at a time into the app just opened, each key sent once
//   the one before shows; the median time from the key's send-keys until the text typed so far is
//   on the screen (capture-pane polled every millisecond).
// - stream CPU: user+sys seconds of the app's process tree (/proc/<pid>/stat) from the prompt's
//   Enter until the last chunk is on the screen (+200 ms), while 500 chunks stream at 10 ms.
// - bytes written to the terminal over the same span (`pipe-pane`), and bytes per chunk; how
//   many full clears (CSI 2J) were among them; the tree's resident memory at the stream's end.
// The 5,000 lines: the bare app is given them with --prefill; lembas gets a session whose answer
// has 5,000 lines (`lembas run x` against a scripted reply) and is opened with `-c`.
// The scripted model says its window (CONTEXT_LENGTH, a common one of today's models) and the
// 5,000 lines fit it: each run checks that the stream's request is within the share of the window
// at which lembas compacts, and that no summary was asked for, or fails saying so.
// harnessFloorMs: the same first frame of a shell that prints the model ref at once (what tmux and
// the polling add to every first frame); harnessKeyFloorMs: the same keys typed into that shell's
// `cat`, echoed by the kernel. One JSON line on stdout, progress on stderr. Goals (measured, never
// asserted): first frame, key to screen and stream CPU ≤ 1.5× the bare app's, bytes per chunk that
// do not grow with the transcript.
//
//   bun bench/tui.ts [--rounds N] [--only bare|lembas] [--screens DIR] [--compiled]      (LEMBAS_ENTRY: another src/index.ts)
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChatRequest, startModel, type ScriptedModel } from "../test/support/model.ts";
import { ENTRY, projectSandbox, runLembas } from "../test/support/run.ts";
import { END_WORD, earlierAnswer, streamChunks } from "./fixtures/tui-text.ts";
import { LIMITS } from "./goals.ts";
import { COMPACT_AT } from "../src/engine/compaction.ts";
import { tokensOfChars } from "../src/engine/tokens.ts";

const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
};
const ROUNDS = Number(flag("--rounds") ?? 3);
const ONLY = flag("--only");
/** --screens DIR: each run's screen after the stream, and the bytes it wrote during the stream, go there. */
const SCREENS = flag("--screens");
const CHUNKS = 500;
const CHUNK_DELAY_MS = 10;
const PREFILL = 5_000;
/** Launches a round adds per app and case that only take the first frame, the noisiest figure. */
const EXTRA_FRAMES = 2;
const COLS = 120;
const ROWS = 40;
const REF = "test/test-model";
const PROMPT = "stream the bench answer";
/** Keys of PROMPT typed before key-to-screen is timed: a shorter prefix could already be on the screen. */
const KEY_PREFIX = 4;
/**
 * The scripted model's window, 128k tokens (GPT-4o's, and the smallest of today's large models).
 * The 5,000-line session is about 50k tokens by lembas's own estimate (170k characters at 3.5 a
 * token, with the system prompt and the tools), under the 80 % of the window (COMPACT_AT) at which
 * lembas compacts: its first prompt is the stream, not a compaction (a model call of its own that
 * would take the stream meant for the answer). Without a window lembas assumes 32k and warns:
 * neither is what the bench measures. `fitsWindow` checks this on every run.
 */
const CONTEXT_LENGTH = 128_000;
const BARE = join(import.meta.dir, "tui-bare.ts");
const LEMBAS = process.env.LEMBAS_ENTRY ?? ENTRY;
const BUN = process.execPath;
/**
 * --compiled: both apps as the product ships, one compiled binary each (build.ts's build for
 * lembas, the same Bun.build options for the bare app), instead of `bun file.ts`, whose first frame
 * is mostly the transpiling of every module.
 */
const COMPILED = argv.includes("--compiled");
let binaries: { lembas: string; bare: string } | null = null;

async function compileBoth(): Promise<{ lembas: string; bare: string }> {
  const dir = mkdtempSync(join(tmpdir(), "lembas-bench-bin-"));
  liveDirs.add(dir);
  const { build } = await import("../build.ts");
  const lembas = await build(join(dir, "lembas"));
  const result = await Bun.build({ entrypoints: [BARE], compile: { outfile: join(dir, "bare") }, minify: true, bytecode: true, format: "esm", splitting: true });
  if (!result.success) throw new Error(`the bare app did not compile: ${result.logs.join("; ")}`);
  log(`compiled ${lembas} and ${join(dir, "bare")}`);
  return { lembas, bare: join(dir, "bare") };
}
const TICK_S = 1 / 100; // USER_HZ: utime and stime count hundredths of a second on Linux

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const log = (line: string) => process.stderr.write(`${line}\n`);
const shq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

type App = "bare" | "lembas";
/** "floor": a shell that prints the model ref and sleeps, for the harness's own share of a first frame. */
type Launch = App | "floor";
type Run = { firstFrameMs: number; keyMs: number; streamCpuS: number; bytes: number; fullClears: number; rssMB: number; quit: boolean };

// ------------------------------------------------------------------------------------------------
// Processes: every pid the bench has seen under a pane, so that none is left behind.

/** pid → its start time (stat field 22), so that a pid the system has reused since is left alone. */
const seenPids = new Map<number, number>();
/** Running tmux servers: socket name → socket file (which kill-server leaves behind). */
const liveServers = new Map<string, string>();

function statOf(pid: number): { ppid: number; ticks: number; start: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // After "pid (comm) ": state ppid ... utime(14) stime(15) cutime(16) cstime(17), 1-based.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const n = (i: number) => Number(fields[i - 3] ?? 0);
    return { ppid: n(4), ticks: n(14) + n(15) + n(16) + n(17), start: n(22) };
  } catch {
    return null;
  }
}

function seen(pid: number): void {
  const stat = statOf(pid);
  if (stat && !seenPids.has(pid)) seenPids.set(pid, stat.start);
}

/** SIGKILL to every process seen under a pane that still runs, then forgets them. */
function killSeen(): void {
  for (const [pid, start] of seenPids) {
    try {
      if (statOf(pid)?.start === start) process.kill(pid, "SIGKILL");
    } catch {}
  }
  seenPids.clear();
}

/** `root` and its descendants, now. */
function treeOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const stat = statOf(pid);
    if (!stat) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(pid);
    children.set(stat.ppid, list);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop() as number;
    if (!statOf(pid)) continue;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  for (const pid of out) seen(pid);
  return out;
}

/** CPU seconds (user+sys, with reaped children) of `root`'s process tree. */
const cpuOf = (root: number) => treeOf(root).reduce((sum, pid) => sum + (statOf(pid)?.ticks ?? 0), 0) * TICK_S;
const alive = (pid: number) => statOf(pid) !== null;

/** Resident memory of `root`'s process tree, in bytes. */
function rssOf(root: number): number {
  let sum = 0;
  for (const pid of treeOf(root)) {
    try {
      sum += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
    } catch {}
  }
  return sum;
}

function killServer(socket: string): void {
  Bun.spawnSync(["tmux", "-L", socket, "kill-server"], { stdout: "ignore", stderr: "ignore" });
  const file = liveServers.get(socket);
  if (file) rmSync(file, { force: true });
  liveServers.delete(socket);
}

/** The throwaway dirs of the run under way. */
const liveDirs = new Set<string>();

function cleanupAll(): void {
  for (const socket of [...liveServers.keys()]) killServer(socket);
  killSeen();
  for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true });
  liveDirs.clear();
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    cleanupAll();
    process.exit(130);
  });
}

// ------------------------------------------------------------------------------------------------
// tmux

function tmux(socket: string, args: string[], env?: Record<string, string>): string {
  const res = Bun.spawnSync(["tmux", "-L", socket, "-f", "/dev/null", ...args], { env, stdout: "pipe", stderr: "pipe" });
  if (res.exitCode !== 0) throw new Error(`tmux ${args[0]}: ${res.stderr.toString().trim()}`);
  return res.stdout.toString();
}

async function screenOf(socket: string): Promise<string> {
  const proc = Bun.spawn(["tmux", "-L", socket, "capture-pane", "-p", "-t", "bench"], { stdout: "pipe", stderr: "ignore" });
  const [text] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return text;
}

/** Polls the screen every `everyMs` until it contains every one of `texts`. */
async function waitForScreen(socket: string, pid: number, texts: string[], timeoutMs: number, everyMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  const text = texts.join(" and ");
  for (;;) {
    const screen = await screenOf(socket);
    if (texts.every((t) => screen.includes(t))) return;
    if (!alive(pid)) throw new Error(`the app exited before ${JSON.stringify(text)} showed; screen:\n${screen}`);
    if (performance.now() > deadline) throw new Error(`${JSON.stringify(text)} not on the screen after ${timeoutMs} ms; screen:\n${screen}`);
    if (everyMs > 0) await Bun.sleep(everyMs);
  }
}

const sizeOf = (file: string) => (existsSync(file) ? statSync(file).size : 0);

/**
 * Types `text` one key at a time, each sent once the one before is on the screen, and returns the
 * median of the keys' times from send-keys until the text typed so far shows. Spaces are typed but
 * not timed (capture-pane drops a line's trailing blanks), nor are the first KEY_PREFIX keys (a
 * prefix that short may be on the screen already).
 */
async function keyToScreen(socket: string, pid: number, text: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const key = text[i] as string;
    const typed = text.slice(0, i + 1);
    const started = performance.now();
    tmux(socket, ["send-keys", "-t", "bench", "-l", key]);
    await waitForScreen(socket, pid, [typed.trimEnd()], 10_000, 1);
    if (key !== " " && i >= KEY_PREFIX) times.push(performance.now() - started);
  }
  return median(times);
}

// ------------------------------------------------------------------------------------------------
// One run of one app

let runCount = 0;
const isTitleCall = (body: ChatRequest) => JSON.stringify(body.messages?.[0] ?? "").includes("You name coding sessions");
const isSummaryCall = (body: ChatRequest) => JSON.stringify(body.messages?.[0] ?? "").includes("You summarise a coding session");
/** The largest request lembas's estimate (engine/tokens.ts) sends before it compacts. */
const MOST_TOKENS = Math.floor(CONTEXT_LENGTH * COMPACT_AT);
/** The estimated tokens of the largest request lembas sent, most of all the 5,000-line session's. */
let sessionTokens = 0;

/**
 * Throws unless lembas's requests fit the declared window as it estimates them (so that it did not
 * compact) and none asked for a summary; notes the largest request's estimate.
 */
function fitsWindow(model: ScriptedModel): void {
  const bodies = model.requests.map((r) => r.body as ChatRequest);
  if (bodies.some(isSummaryCall)) throw new Error(`lembas compacted the session: it does not fit the declared window of ${CONTEXT_LENGTH} tokens`);
  for (const body of bodies) {
    if (isTitleCall(body)) continue;
    const tokens = tokensOfChars(JSON.stringify(body.messages ?? []).length + JSON.stringify(body.tools ?? []).length);
    if (tokens >= MOST_TOKENS) throw new Error(`a request of about ${tokens} tokens is over ${COMPACT_AT * 100} % of the declared window (${CONTEXT_LENGTH}): lembas would compact it`);
    sessionTokens = Math.max(sessionTokens, tokens);
  }
}

/** One launch; with `frameOnly` it ends at the first frame (the other figures are then NaN). */
async function runOnce(app: Launch, big: boolean, frameOnly = false): Promise<Run> {
  const socket = `lembas-bench-tui-${process.pid}-${runCount++}`;
  const stream = { match: (b: ChatRequest) => !isTitleCall(b), text: streamChunks(CHUNKS), chunkDelayMs: CHUNK_DELAY_MS };
  const model: ScriptedModel = await startModel({ fallback: { text: "Bench title" }, models: [{ id: "test-model", context_length: CONTEXT_LENGTH }] });
  const box = projectSandbox(model.url);
  liveDirs.add(box.dir);
  mkdirSync(box.env.HOME as string, { recursive: true });
  const pipeFile = join(box.dir, "pane.bytes");
  try {
    if (app === "lembas" && big) {
      model.push({ match: (b) => !isTitleCall(b), text: earlierAnswer(PREFILL) });
      const made = await runLembas(box, ["run", "x"], { cwd: box.project, timeoutMs: 60_000 });
      if (made.code !== 0) throw new Error(`lembas run x exited ${made.code}: ${made.stderr.slice(-500)}`);
    }
    model.push(stream);
    const cmd =
      app === "bare"
        ? [...(binaries ? [binaries.bare] : [BUN, BARE]), "--url", model.url, "--ref", REF, ...(big ? ["--prefill", String(PREFILL)] : [])]
        : app === "lembas"
          ? [...(binaries ? [binaries.lembas] : [BUN, LEMBAS]), ...(big ? ["-c"] : [])]
          : ["sh", "-c", `echo ${REF}; exec cat >/dev/null`];
    const env: Record<string, string> = { ...box.env, SHELL: "/bin/sh", TERM: "xterm-256color" };
    liveServers.set(socket, "");
    tmux(socket, ["new-session", "-d", "-s", "bench", "-x", String(COLS), "-y", String(ROWS), "-c", box.project, `read _; exec ${cmd.map(shq).join(" ")}`], env);
    const [pane, socketPath] = tmux(socket, ["display-message", "-p", "-t", "bench", "#{pane_pid} #{socket_path}"]).trim().split(" ");
    liveServers.set(socket, socketPath ?? "");
    const pid = Number(pane);
    seen(pid);
    tmux(socket, ["pipe-pane", "-o", "-t", "bench", `cat >> ${shq(pipeFile)}`]);

    const started = performance.now();
    tmux(socket, ["send-keys", "-t", "bench", "Enter"]);
    // With 5,000 lines, the frame counts once their end is on the screen too, not just the status bar.
    await waitForScreen(socket, pid, big ? [REF, `line ${PREFILL} of the earlier answer`] : [REF], 30_000, 2);
    const firstFrameMs = performance.now() - started;
    const none = { streamCpuS: NaN, bytes: NaN, fullClears: NaN, rssMB: NaN, quit: true };
    if (frameOnly) return { firstFrameMs, keyMs: NaN, ...none };

    await Bun.sleep(500); // whatever the app does after its first frame (opening the session) is over before the keys
    // The floor's pane is a terminal in cooked mode: the kernel echoes the keys.
    const keyMs = await keyToScreen(socket, pid, PROMPT);
    if (app === "floor") return { firstFrameMs, keyMs, ...none };
    await Bun.sleep(500); // and before the stream
    const bytes0 = sizeOf(pipeFile);
    const cpu0 = cpuOf(pid);
    tmux(socket, ["send-keys", "-t", "bench", "Enter"]);
    // A compaction takes the stream meant for the answer, which then never shows: said first.
    try {
      await waitForScreen(socket, pid, [END_WORD], 30_000, 20);
    } catch (error) {
      if (app === "lembas") fitsWindow(model);
      throw error;
    }
    if (app === "lembas") fitsWindow(model);
    await Bun.sleep(200);
    const streamCpuS = cpuOf(pid) - cpu0;
    const rssMB = rssOf(pid) / 1e6;
    const bytes1 = sizeOf(pipeFile);
    const written = readFileSync(pipeFile).subarray(bytes0, bytes1).toString("latin1");
    const fullClears = written.split("\x1b[2J").length - 1;
    if (SCREENS) {
      mkdirSync(SCREENS, { recursive: true });
      const name = join(SCREENS, `${socket}-${app}${big ? "-5k" : ""}`);
      writeFileSync(`${name}.txt`, await screenOf(socket));
      writeFileSync(`${name}.stream.bytes`, written, "latin1");
    }

    tmux(socket, ["send-keys", "-t", "bench", "C-d"]);
    const quitBy = performance.now() + 3_000;
    while (alive(pid) && performance.now() < quitBy) await Bun.sleep(20);
    return { firstFrameMs, keyMs, streamCpuS, bytes: bytes1 - bytes0, fullClears, rssMB, quit: !alive(pid) };
  } finally {
    killServer(socket);
    killSeen();
    await model.close();
    box.cleanup();
    liveDirs.delete(box.dir);
  }
}

// ------------------------------------------------------------------------------------------------

type Figures = {
  firstFrameMs: number;
  keyMs: number;
  streamCpuS: number;
  bytes: number;
  bytesPerChunk: number;
  fullClears: number;
  rssMB: number;
  firstFrame5kMs: number;
  key5kMs: number;
  streamCpu5kS: number;
  bytes5k: number;
  bytesPerChunk5k: number;
  fullClears5k: number;
  rss5kMB: number;
  quitOnCtrlD: boolean;
};

function figuresOf(small: Run[], big: Run[], frames: { small: number[]; big: number[] }): Figures {
  const bytes = median(small.map((r) => r.bytes));
  const bytes5k = median(big.map((r) => r.bytes));
  return {
    firstFrameMs: round(median(frames.small), 1),
    keyMs: round(median(small.map((r) => r.keyMs)), 1),
    streamCpuS: round(median(small.map((r) => r.streamCpuS))),
    bytes,
    bytesPerChunk: round(bytes / CHUNKS, 1),
    fullClears: median(small.map((r) => r.fullClears)),
    rssMB: Math.round(median(small.map((r) => r.rssMB))),
    firstFrame5kMs: round(median(frames.big), 1),
    key5kMs: round(median(big.map((r) => r.keyMs)), 1),
    streamCpu5kS: round(median(big.map((r) => r.streamCpuS))),
    bytes5k,
    bytesPerChunk5k: round(bytes5k / CHUNKS, 1),
    fullClears5k: median(big.map((r) => r.fullClears)),
    rss5kMB: Math.round(median(big.map((r) => r.rssMB))),
    quitOnCtrlD: [...small, ...big].every((r) => r.quit),
  };
}

const apps: App[] = ONLY === "bare" || ONLY === "lembas" ? [ONLY] : ["bare", "lembas"];
const runs: Record<App, { small: Run[]; big: Run[] }> = { bare: { small: [], big: [] }, lembas: { small: [], big: [] } };
/** Every first frame: the full runs' and the extra launches'. */
const frames: Record<App, { small: number[]; big: number[] }> = { bare: { small: [], big: [] }, lembas: { small: [], big: [] } };
const errors: Partial<Record<App, string>> = {};
const floors: Run[] = [];

try {
  if (COMPILED) binaries = await compileBoth();
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? apps : [...apps].reverse();
    floors.push(await runOnce("floor", false));
    for (const big of [false, true]) {
      for (const app of order) {
        if (errors[app]) continue;
        try {
          const run = await runOnce(app, big);
          runs[app][big ? "big" : "small"].push(run);
          const more: number[] = [];
          for (let i = 0; i < EXTRA_FRAMES; i++) more.push((await runOnce(app, big, true)).firstFrameMs);
          frames[app][big ? "big" : "small"].push(run.firstFrameMs, ...more);
          log(
            `round ${r + 1}/${ROUNDS} ${app}${big ? " +5k" : ""}: first frame ${run.firstFrameMs.toFixed(1)} ms, key ${run.keyMs.toFixed(1)} ms, ` +
              `stream CPU ${run.streamCpuS.toFixed(2)} s, ${run.bytes} B (${(run.bytes / CHUNKS).toFixed(1)} B/chunk), ` +
              `${run.fullClears} full clears${run.quit ? "" : ", did not quit on Ctrl-D"}; more first frames ${more.map((ms) => ms.toFixed(1)).join(", ")} ms`,
          );
        } catch (error) {
          errors[app] = error instanceof Error ? error.message : String(error);
          log(`${app}${big ? " +5k" : ""} failed, no more ${app} runs: ${errors[app]}`);
        }
      }
    }
  }
} finally {
  cleanupAll();
}

const figures: Partial<Record<App, Figures>> = {};
for (const app of apps) {
  if (runs[app].small.length && runs[app].big.length) figures[app] = figuresOf(runs[app].small, runs[app].big, frames[app]);
}
const { bare, lembas } = figures;
const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? null : round(a / b));
console.log(
  JSON.stringify({
    bench: "tui",
    compiled: COMPILED,
    rounds: ROUNDS,
    firstFramesPerCase: ROUNDS * (1 + EXTRA_FRAMES),
    chunks: CHUNKS,
    chunkDelayMs: CHUNK_DELAY_MS,
    prefillLines: PREFILL,
    contextLength: CONTEXT_LENGTH,
    largestRequestTokens: sessionTokens,
    screen: `${COLS}x${ROWS}`,
    harnessFloorMs: round(median(floors.map((f) => f.firstFrameMs)), 1),
    harnessKeyFloorMs: round(median(floors.map((f) => f.keyMs)), 1),
    lembas: lembas ?? null,
    bare: bare ?? null,
    ratios: {
      firstFrame: ratio(lembas?.firstFrameMs, bare?.firstFrameMs),
      firstFrame5k: ratio(lembas?.firstFrame5kMs, bare?.firstFrame5kMs),
      key: ratio(lembas?.keyMs, bare?.keyMs),
      key5k: ratio(lembas?.key5kMs, bare?.key5kMs),
      streamCpu: ratio(lembas?.streamCpuS, bare?.streamCpuS),
      streamCpu5k: ratio(lembas?.streamCpu5kS, bare?.streamCpu5kS),
      bytesPerChunk: ratio(lembas?.bytesPerChunk, bare?.bytesPerChunk),
    },
    bytesPerChunkGrowth: {
      lembas: ratio(lembas?.bytesPerChunk5k, lembas?.bytesPerChunk),
      bare: ratio(bare?.bytesPerChunk5k, bare?.bytesPerChunk),
    },
    goals: { ratios: LIMITS.tui.ratio, bytesPerChunkGrowth: LIMITS.tui.bytes_per_chunk_growth },
    ...(Object.keys(errors).length ? { errors } : {}),
  }),
);
