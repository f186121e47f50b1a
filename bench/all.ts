// Every benchmark in one go: each runs in its own process, one after another (never two at once:
// they would measure each other), and for each this prints one JSON line on stdout: whether it ran,
// `met` (true or false for each of its goals, bench/goals.ts), what each goal's figure and limit
// were, and the bench's own line under `figures`. Progress and the benches' own stderr go to stderr.
// Exit status: 0 when every bench ran and met every goal, 1 when a goal was missed, 2 when a bench
// did not run to its line.
//
//   bun bench/all.ts [--quick] [--only a,b] [--skip a,b] [--timeout-min N]
//
// --quick: the long benches at a smaller size (library at 10,000 chunks only, terminal and pty with
// 50 MB floods, tui with one round): the figures are noisier, the goals the same.
import { join } from "node:path";
import { type Figures, GOALS, type Judged, judgeBench } from "./goals.ts";

type Bench = { name: string; args: string[]; quick?: string[] };

/** In the order they run: quick ones first, so a broken build shows at once. */
const BENCHES: Bench[] = [
  { name: "startup", args: [] },
  { name: "engine", args: [] },
  { name: "link", args: [] },
  { name: "acp-stdio", args: [] },
  { name: "undo", args: [] },
  { name: "pty", args: [], quick: ["--quick"] },
  { name: "terminal", args: [], quick: ["--quick"] },
  { name: "share", args: [] },
  { name: "files", args: [] },
  { name: "library", args: [], quick: ["--quick"] },
  { name: "code-index", args: [], quick: ["--files", "5000"] },
  { name: "tui", args: [], quick: ["--rounds", "1"] },
  { name: "paste", args: [], quick: ["--rounds", "1"] },
];

const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
};
const names = (list: string | undefined) => new Set(list?.split(",").filter(Boolean) ?? []);
const QUICK = argv.includes("--quick");
const only = names(flag("--only"));
const skip = names(flag("--skip"));
const TIMEOUT_MS = Number(flag("--timeout-min") ?? 30) * 60_000;
const log = (line: string) => process.stderr.write(`${line}\n`);

for (const name of [...only, ...skip]) {
  if (BENCHES.some((b) => b.name === name)) continue;
  log(`there is no bench "${name}": the benches are ${BENCHES.map((b) => b.name).join(", ")}`);
  process.exit(2);
}
for (const name of Object.keys(GOALS)) {
  if (!BENCHES.some((b) => b.name === name)) throw new Error(`bench/goals.ts has goals for "${name}", which all.ts does not run`);
}

type Ran = { figures: Figures | null; error: string | null; seconds: number };

/** The last line of `stdout` that is the bench's JSON object (`"bench": name`). */
function lineOf(stdout: string, name: string): Figures | null {
  const lines = stdout.trim().split("\n").reverse();
  for (const line of lines) {
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === "object" && value !== null && (value as Figures).bench === name) return value as Figures;
    } catch {}
  }
  return null;
}

/** Runs one bench in a process of its own; its stderr passes through (and its end is kept for the error). */
async function run(bench: Bench): Promise<Ran> {
  const started = performance.now();
  const args = QUICK && bench.quick ? bench.quick : bench.args;
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, `${bench.name}.ts`), ...args], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const timer = setTimeout(() => proc.kill("SIGTERM"), TIMEOUT_MS);
  let tail = "";
  const passErr = (async () => {
    const decoder = new TextDecoder();
    for await (const part of proc.stderr) {
      process.stderr.write(part);
      tail = (tail + decoder.decode(part, { stream: true })).slice(-2000);
    }
  })();
  const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited, passErr]);
  clearTimeout(timer);
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  const figures = lineOf(stdout, bench.name);
  if (figures !== null && code === 0) return { figures, error: null, seconds };
  const why = code === 0 ? "it printed no JSON line" : proc.signalCode === "SIGTERM" ? `it ran past ${TIMEOUT_MS / 60_000} minutes and was stopped` : `it exited with ${code}`;
  // Bun ends an uncaught error's report with its stack and version: its `error:` line says why.
  const lines = tail.trim().split("\n");
  const said = lines.findLast((line) => line.startsWith("error: ")) ?? lines.slice(-3).join(" | ");
  return { figures, error: `${why}${said ? `: ${said}` : ""}`, seconds };
}

let missed = false;
let failed = false;
const chosen = BENCHES.filter((b) => (only.size === 0 || only.has(b.name)) && !skip.has(b.name));
for (const bench of chosen) {
  log(`— ${bench.name}${QUICK && bench.quick ? " (quick)" : ""}`);
  const ran = await run(bench);
  const goals: Record<string, Judged> = judgeBench(bench.name, ran.figures);
  const met = Object.fromEntries(Object.entries(goals).map(([name, judged]) => [name, judged.met]));
  const allMet = ran.error === null && Object.values(met).every(Boolean);
  if (ran.error !== null) failed = true;
  else if (!allMet) missed = true;
  console.log(
    JSON.stringify({
      bench: bench.name,
      ran: ran.error === null,
      all_met: allMet,
      met,
      goals,
      seconds: ran.seconds,
      ...(QUICK && bench.quick ? { quick: true } : {}),
      ...(ran.error === null ? {} : { error: ran.error }),
      figures: ran.figures,
    }),
  );
  log(`— ${bench.name}: ${ran.error ?? (allMet ? "every goal met" : `missed ${Object.keys(met).filter((k) => !met[k]).join(", ")}`)} (${ran.seconds} s)`);
}
process.exit(failed ? 2 : missed ? 1 : 0);
