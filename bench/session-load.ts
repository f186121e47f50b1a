// session/load of a long session, for bench/acp-stdio.ts: a session of N turns written straight
// into the store (each turn a question, a thought and an answer with an edit's call, its result and
// its diff), then `serve --stdio` loads it: the time from the request to the last replayed update,
// and the process's peak RSS once it answered. The memory goal is judged on the RSS's growth from
// 2,000 turns to 6,000 against the texts' growth (bench/README.md says why not from 200).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../src/store/db.ts";
import { appendMessage } from "../src/store/messages.ts";
import { insertSession } from "../src/store/sessions.ts";

/** Writes a session of `turns` turns into the store; returns its id and the bytes of its texts. */
export function storedSession(stateDir: string, project: string, turns: number): { sessionId: string; textBytes: number } {
  const db = openDb(join(stateDir, "lembas.db"));
  const sessionId = `ses_bench${turns}${Date.now().toString(36)}`;
  let textBytes = 0;
  try {
    insertSession(db, { id: sessionId, root: project, cwd: project, mode: "edit", model: null, effort: "medium", origin: "stdio", title: `${turns} turns` });
    db.transaction(() => {
      for (let i = 1; i <= turns; i++) {
        const turnId = `turn-${i}`;
        const path = join(project, `notes-${i % 20}.md`);
        const before = `# Notes ${i}\n${"Some line of the file as it was.\n".repeat(40)}`;
        const after = before.replace("# Notes", "# Notes, edited");
        const question = `Please change the heading of notes-${i % 20}.md, turn ${i}.`;
        const thought = `The heading is on the first line; an edit replaces it. ${"Thinking it through. ".repeat(10)}`;
        const args = { path, old_string: `# Notes ${i}`, new_string: `# Notes, edited ${i}` };
        const output = `Edited notes-${i % 20}.md (1 replacement)`;
        const answer = `Done: the heading of notes-${i % 20}.md now says it was edited. ${"More words of the answer. ".repeat(10)}`;
        appendMessage(db, sessionId, "user", { text: question }, turnId);
        appendMessage(db, sessionId, "assistant", { text: "", reasoning: thought, toolCalls: [{ id: `call_${i}`, name: "edit", arguments: JSON.stringify(args) }] }, turnId);
        // As the engine keeps a result: with its diff, and the title, kind and file it was shown with.
        const shown = { title: `Edit notes-${i % 20}.md`, kind: "edit", paths: [path] };
        appendMessage(db, sessionId, "tool", { callId: `call_${i}`, name: "edit", output, isError: false, args, diffs: [{ path, oldText: before, newText: after }], ...shown }, turnId);
        appendMessage(db, sessionId, "assistant", { text: answer, reasoning: "", toolCalls: [] }, turnId);
        textBytes += question.length + thought.length + output.length + answer.length + before.length + after.length + JSON.stringify(args).length;
      }
    })();
  } finally {
    db.close();
  }
  return { sessionId, textBytes };
}

/** `cpuMs`: the CPU the process spent from the request to its answer (user and system), which a loaded machine moves less than the wall clock. */
export type LoadTiming = { firstUpdateMs: number; lastUpdateMs: number; answerMs: number; updates: number; peakRssMb: number; cpuMs: number };

/** One `serve --stdio`: initialize, then session/load of the session; the process ends after. */
export async function measureLoad(cmd: string[], env: Record<string, string>, cwd: string, sessionId: string): Promise<LoadTiming> {
  const proc = Bun.spawn(cmd, { env, cwd, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  const decoder = new TextDecoder();
  const reader = proc.stdout.getReader();
  let buffer = "";
  let updates = 0;
  let firstUpdate = 0;
  let lastUpdate = 0;
  const until = async (id: number): Promise<void> => {
    for (;;) {
      let nl = buffer.indexOf("\n");
      while (nl !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf("\n");
        if (!line) continue;
        const message = JSON.parse(line) as { id?: number; method?: string };
        if (message.method === "session/update" && !line.includes("available_commands_update")) {
          updates++;
          if (updates === 1) firstUpdate = performance.now();
          lastUpdate = performance.now();
        }
        if (message.id === id) return;
      }
      const { done, value } = await reader.read();
      if (done) throw new Error(`${cmd[0]} ended early`);
      buffer += decoder.decode(value, { stream: true });
    }
  };
  const send = (message: object) => {
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    void proc.stdin.flush();
  };
  send({ id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
  await until(1);
  const cpuBefore = cpuTime(proc.pid);
  const started = performance.now();
  send({ id: 2, method: "session/load", params: { sessionId, cwd, mcpServers: [] } });
  await until(2);
  const answerMs = performance.now() - started;
  const cpuMs = cpuTime(proc.pid) - cpuBefore;
  const peakRssMb = peakRss(proc.pid);
  proc.stdin.end();
  await proc.exited;
  return { firstUpdateMs: firstUpdate - started, lastUpdateMs: lastUpdate - started, answerMs, updates, peakRssMb, cpuMs };
}

/** The CPU a process has used so far (user and system, /proc/PID/stat's utime and stime), in ms. */
function cpuTime(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100;
}

/** A process's peak resident set (VmHWM), in MB. */
function peakRss(pid: number): number {
  const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return kb ? Number(kb) / 1024 : NaN;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const round = (n: number) => Math.round(n * 100) / 100;
const mb = (bytes: number) => round(bytes / (1024 * 1024));

/**
 * The load figures of one place (a store under `stateDir`, the project the sessions are of): a
 * 200-turn load `runs` times (after one to warm the disk's cache), then 2,000 and 6,000 turns
 * `longRuns` times each. `load_rss_growth_mb` is the peak RSS's growth from 2,000 turns to 6,000,
 * held to the texts' growth over the same turns (`longest_load_text_mb` − `long_load_text_mb`).
 */
export async function loadFigures(cmd: string[], env: Record<string, string>, stateDir: string, project: string, runs: number, longRuns: number) {
  const short = storedSession(stateDir, project, 200);
  const long = storedSession(stateDir, project, 2000);
  const longest = storedSession(stateDir, project, 6000);
  const loadsOf = async (sessionId: string, n: number) => {
    const out: LoadTiming[] = [];
    for (let i = 0; i < n; i++) out.push(await measureLoad(cmd, env, project, sessionId));
    return out;
  };
  await measureLoad(cmd, env, project, short.sessionId);
  const loads = await loadsOf(short.sessionId, runs);
  const longLoads = await loadsOf(long.sessionId, longRuns);
  const longestLoads = await loadsOf(longest.sessionId, longRuns);
  const rss = (timings: LoadTiming[]) => median(timings.map((t) => t.peakRssMb));
  const ms = (timings: LoadTiming[], of: (t: LoadTiming) => number) => round(median(timings.map(of)));
  return {
    load_turns: 200,
    load_updates: loads[0]?.updates,
    load_first_update_ms: ms(loads, (t) => t.firstUpdateMs),
    load_last_update_ms: ms(loads, (t) => t.lastUpdateMs),
    load_answer_ms: ms(loads, (t) => t.answerMs),
    load_cpu_ms: ms(loads, (t) => t.cpuMs),
    load_peak_rss_mb: round(rss(loads)),
    load_text_mb: mb(short.textBytes),
    long_load_turns: 2000,
    long_load_last_update_ms: ms(longLoads, (t) => t.lastUpdateMs),
    long_load_cpu_ms: ms(longLoads, (t) => t.cpuMs),
    long_load_peak_rss_mb: round(rss(longLoads)),
    long_load_text_mb: mb(long.textBytes),
    longest_load_turns: 6000,
    longest_load_last_update_ms: ms(longestLoads, (t) => t.lastUpdateMs),
    longest_load_peak_rss_mb: round(rss(longestLoads)),
    longest_load_text_mb: mb(longest.textBytes),
    // From 2,000 turns, not 200: below it the RSS still rises to the collector's working allowance, once.
    load_rss_growth_mb: round(rss(longestLoads) - rss(longLoads)),
    load_text_growth_mb: round(mb(longest.textBytes) - mb(long.textBytes)),
  };
}

/**
 * `bun bench/session-load.ts`: the load figures alone (acp-stdio.ts's last lines), against the
 * compiled binary ($LEMBAS_BIN, else built here), or `--source` against `bun src/index.ts`.
 */
if (import.meta.main) {
  const { mkdirSync, mkdtempSync, rmSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(join(tmpdir(), "lembas-bench-load-"));
  try {
    const project = join(dir, "project");
    mkdirSync(join(dir, "config"), { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(join(dir, "config", "config.yaml"), "model: test/test-model\nconnections:\n  test:\n    base_url: http://127.0.0.1:9\n");
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, LEMBAS_CONFIG_DIR: join(dir, "config"), LEMBAS_STATE_DIR: join(dir, "state"), LEMBAS_STDIO_OWN_ENGINE: "1" };
    const cmd = process.argv.includes("--source")
      ? [process.execPath, join(import.meta.dir, "../src/index.ts"), "serve", "--stdio"]
      : [process.env.LEMBAS_BIN ?? (await (await import("../build.ts")).build(join(dir, "lembas"))), "serve", "--stdio"];
    console.log(JSON.stringify({ bench: "session-load", ...(await loadFigures(cmd, env, join(dir, "state"), project, 7, 3)) }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
