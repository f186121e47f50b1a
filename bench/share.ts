// A web prompt in a terminal's shared session against the same prompt in a session the service
// holds, in one run: chunks of text per second reaching the simulated instance, counted by content
// (first text to the turn's end). The shared path is the real terminal (in tmux, drawing every
// chunk) running the turn on its engine → the control socket → the service → the link; the
// service's own is its engine → the link. A round is TURNS (2) prompts on the service's session
// and then as many on the shared one, each answered with CHUNKS (250,000) small chunks in
// paragraphs of 80 words, as answers come: 0.5 s and more on each path here (at 20,000 chunks a
// round lasted 40 ms, one hiccup of the scheduler moved the ratio from 0.5 to 1.75, and the
// terminal drew most of an answer after its end, where no clock looked). `ratio` is the median of
// the rounds' own ratios (a neighbour's load moves both halves of a round alike), `ratio_min` and
// `ratio_max` their spread; beside the wall clock, the CPU of lembas's processes in each (/proc:
// the service alone; the terminal and the service, also apart), which the load moves less. The
// same words as one paragraph are measured too, the terminal's worst case (it parses the paragraph
// still growing again at every frame). Each round's figures go to stderr as it ends.
// One JSON line; goal: shared ≥ 0.8× the service's (in paragraphs). ROUNDS=<n> (default 5),
// CHUNKS=<n>, TURNS=<n> and SHAPES=paragraphs,one_paragraph choose what is run; LEMBAS_PROF=<dir>
// profiles the terminal and the service (Bun's --cpu-prof, with its markdown summary) into
// <dir>/terminal and <dir>/service.
import { readFileSync } from "node:fs";
import { startDevice } from "../test/support/device.ts";
import { step } from "../test/support/engine.ts";
import type { Link } from "../test/support/instance.ts";
import { HAVE_TMUX, openScreen } from "../test/support/tmux.ts";
import { LIMITS } from "./goals.ts";

const CHUNKS = Number(process.env.CHUNKS ?? 250_000);
/** Prompts a counted round runs on each path, one after another: a step's text stops at 1 MB (STEP_TEXT_LIMIT). */
const TURNS = Number(process.env.TURNS ?? 2);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const TICK_MS = 10; // USER_HZ: /proc's utime and stime count hundredths of a second
const words = Array.from({ length: CHUNKS }, (_, i) => `w${i % 10}`);
const replies = {
  paragraphs: words.map((w, i) => (i % 80 === 79 ? `${w}\n\n` : `${w} `)),
  one_paragraph: words.map((w) => `${w} `),
};
type Shape = keyof typeof replies;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const round2 = (n: number) => Math.round(n * 100) / 100;
type Event = { type: string; delta?: string };
type Run = { window: number; tail: number; frames: number; cpu: number[] };

/** CPU (user and system) a process has used so far, in ms; 0 once it is gone. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * One web prompt, timed where the instance receives its events (looked at as they are stored),
 * with the CPU the given processes spent from the request to the turn's end.
 */
async function webRun(link: Link, sessionId: string, turnId: string, shape: Shape, pids: number[]): Promise<Run> {
  const expected = replies[shape].join("");
  let first = 0;
  let last = 0;
  let lastText = 0;
  let text = "";
  let frames = 0;
  const store = link.notifications;
  const push = store.push.bind(store);
  store.push = (...items) => {
    for (const n of items) {
      if (n.method !== "_lembas/event") continue;
      const p = n.params as { sessionId: string; event: Event };
      if (p.sessionId !== sessionId) continue;
      if (p.event.type === "text") {
        frames++;
        text += p.event.delta ?? "";
        lastText = performance.now();
        if (first === 0) first = lastText;
      }
      if (p.event.type === "done") last = performance.now();
    }
    return push(...items);
  };
  const cpuBefore = pids.map(cpuMs);
  try {
    await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: turnId }], _meta: { lembas: { turnId } } }, 120_000);
    while (last === 0) await Bun.sleep(1);
  } finally {
    store.push = push;
  }
  const cpu = pids.map((pid, i) => cpuMs(pid) - (cpuBefore[i] ?? 0));
  if (text !== expected) throw new Error(`the instance got ${text.length} characters of text, not ${expected.length}`);
  return { window: last - first, tail: last - lastText, frames, cpu };
}

/** `turns` prompts one after another, each with its reply queued at the model: their windows, frames and CPU added up. */
async function turnsRun(turns: number, shape: Shape, run: (turn: number) => Promise<Run>): Promise<Run> {
  const all: Run = { window: 0, tail: 0, frames: 0, cpu: [] };
  for (let t = 0; t < turns; t++) {
    device.model.push(step({ text: replies[shape] }));
    const r = await run(t);
    all.window += r.window;
    all.tail = Math.max(all.tail, r.tail);
    all.frames += r.frames;
    all.cpu = r.cpu.map((ms, i) => ms + (all.cpu[i] ?? 0));
  }
  return all;
}

if (!HAVE_TMUX) throw new Error("bench/share.ts drives the terminal in tmux: install tmux");
const device = await startDevice();
const screen = await (async () => {
  const link = await device.serve();
  const s = await openScreen(device.box, { cwd: device.project });
  await s.waitFor("test/test-model");
  return { link, s };
})();
try {
  const { link, s } = screen;
  const announce = (await link.waitForNotification("_lembas/session/announce", 15_000)).params as { sessionId: string };
  const shared = announce.sessionId;
  const { sessionId: own } = (await link.request("session/new", { cwd: device.project, mcpServers: [] })) as { sessionId: string };
  const servicePid = device.service?.pid ?? 0;
  const terminalPid = s.pid();
  const figures: Record<string, number> = {};
  for (const shape of (process.env.SHAPES?.split(",") ?? ["paragraphs", "one_paragraph"]) as Shape[]) {
    const rounds: { own: Run; shared: Run }[] = [];
    // Round 0 warms both paths and is not counted.
    for (let i = 0; i <= ROUNDS; i++) {
      const turns = i === 0 ? 1 : TURNS;
      const o = await turnsRun(turns, shape, (t) => webRun(link, own, `own-${shape}-${i}-${t}`, shape, [servicePid]));
      const sh = await turnsRun(turns, shape, (t) => webRun(link, shared, `shared-${shape}-${i}-${t}`, shape, [terminalPid, servicePid]));
      if (i > 0) rounds.push({ own: o, shared: sh });
      process.stderr.write(`${shape} round ${i}${i === 0 ? " (warm-up)" : ""}: service ${Math.round(o.window)} ms, shared ${Math.round(sh.window)} ms, ratio ${round2(o.window / sh.window)}; CPU ${sum(o.cpu)} ms against ${sum(sh.cpu)} ms\n`);
    }
    const ratios = rounds.map((r) => r.own.window / r.shared.window);
    const key = shape === "paragraphs" ? "" : `${shape}_`;
    figures[`${key}shared_chunks_per_s`] = Math.round((CHUNKS * TURNS) / (median(rounds.map((r) => r.shared.window)) / 1000));
    figures[`${key}service_chunks_per_s`] = Math.round((CHUNKS * TURNS) / (median(rounds.map((r) => r.own.window)) / 1000));
    figures[`${key}shared_text_frames`] = median(rounds.map((r) => r.shared.frames));
    figures[`${key}service_text_frames`] = median(rounds.map((r) => r.own.frames));
    figures[`${key}ratio`] = round2(median(ratios));
    figures[`${key}ratio_min`] = round2(Math.min(...ratios));
    figures[`${key}ratio_max`] = round2(Math.max(...ratios));
    figures[`${key}shared_round_ms`] = Math.round(median(rounds.map((r) => r.shared.window)));
    figures[`${key}service_round_ms`] = Math.round(median(rounds.map((r) => r.own.window)));
    figures[`${key}shared_tail_ms`] = Math.round(median(rounds.map((r) => r.shared.tail)));
    figures[`${key}service_tail_ms`] = Math.round(median(rounds.map((r) => r.own.tail)));
    figures[`${key}shared_cpu_ms`] = median(rounds.map((r) => sum(r.shared.cpu)));
    figures[`${key}shared_terminal_cpu_ms`] = median(rounds.map((r) => r.shared.cpu[0] ?? 0));
    figures[`${key}shared_service_cpu_ms`] = median(rounds.map((r) => r.shared.cpu[1] ?? 0));
    figures[`${key}service_cpu_ms`] = median(rounds.map((r) => sum(r.own.cpu)));
    const cpuRatios = rounds.map((r) => sum(r.own.cpu) / sum(r.shared.cpu));
    figures[`${key}cpu_ratio`] = round2(median(cpuRatios));
    figures[`${key}cpu_ratio_min`] = round2(Math.min(...cpuRatios));
    figures[`${key}cpu_ratio_max`] = round2(Math.max(...cpuRatios));
  }
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(JSON.stringify({ bench: "share", chunks: CHUNKS, turns: TURNS, rounds: ROUNDS, ...figures, goal: LIMITS.share.ratio, load_avg: load }));
  if (process.env.LEMBAS_PROF) {
    // A profile is written when the program exits of itself: Ctrl-D twice quits the terminal.
    await s.type("C-d");
    await s.type("C-d");
    await s.exited(10_000);
    await device.kill("SIGTERM");
  }
  await s.close();
} finally {
  await device.close();
}
