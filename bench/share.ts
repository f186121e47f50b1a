// A web prompt in a terminal's shared session against the same prompt in a session the service
// holds, in one run: chunks of text per second reaching the simulated instance, counted by content
// (first text to the turn's end). The shared path is the real terminal (in tmux, drawing every
// chunk) running the turn on its engine → the control socket → the service → the link; the
// service's own is its engine → the link. Rounds alternate between the two. The reply is 20,000
// small chunks in paragraphs of 80 words, as answers come; the same words as one paragraph are
// measured too, the terminal's worst case (it redraws the paragraph still growing at every chunk).
// One JSON line; goal: shared ≥ 0.8× the service's (in paragraphs). ROUNDS=<n> (default 5) and
// SHAPES=paragraphs,one_paragraph choose what is run; LEMBAS_PROF=<dir> profiles the terminal and
// the service (Bun's --cpu-prof, with its markdown summary) into <dir>/terminal and <dir>/service.
import { startDevice } from "../test/support/device.ts";
import { step } from "../test/support/engine.ts";
import type { Link } from "../test/support/instance.ts";
import { HAVE_TMUX, openScreen } from "../test/support/tmux.ts";
import { LIMITS } from "./goals.ts";

const CHUNKS = 20_000;
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const words = Array.from({ length: CHUNKS }, (_, i) => `w${i % 10}`);
const replies = {
  paragraphs: words.map((w, i) => (i % 80 === 79 ? `${w}\n\n` : `${w} `)),
  one_paragraph: words.map((w) => `${w} `),
};
type Shape = keyof typeof replies;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
type Event = { type: string; delta?: string };

/** One web prompt, timed where the instance receives its events (looked at as they are stored). */
async function webRun(link: Link, sessionId: string, turnId: string, shape: Shape): Promise<{ window: number; frames: number }> {
  const expected = replies[shape].join("");
  let first = 0;
  let last = 0;
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
        if (first === 0) first = performance.now();
      }
      if (p.event.type === "done") last = performance.now();
    }
    return push(...items);
  };
  try {
    await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: turnId }], _meta: { lembas: { turnId } } }, 120_000);
    while (last === 0) await Bun.sleep(1);
  } finally {
    store.push = push;
  }
  if (text !== expected) throw new Error(`the instance got ${text.length} characters of text, not ${expected.length}`);
  return { window: last - first, frames };
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
  const figures: Record<string, number> = {};
  for (const shape of (process.env.SHAPES?.split(",") ?? ["paragraphs", "one_paragraph"]) as Shape[]) {
    const sharedRuns: { window: number; frames: number }[] = [];
    const ownRuns: { window: number; frames: number }[] = [];
    // Round 0 warms both paths and is not counted.
    for (let i = 0; i <= ROUNDS; i++) {
      device.model.push(step({ text: replies[shape] }));
      const o = await webRun(link, own, `own-${shape}-${i}`, shape);
      device.model.push(step({ text: replies[shape] }));
      const sh = await webRun(link, shared, `shared-${shape}-${i}`, shape);
      if (i > 0) {
        ownRuns.push(o);
        sharedRuns.push(sh);
      }
    }
    const ownRate = CHUNKS / (median(ownRuns.map((r) => r.window)) / 1000);
    const sharedRate = CHUNKS / (median(sharedRuns.map((r) => r.window)) / 1000);
    const key = shape === "paragraphs" ? "" : `${shape}_`;
    figures[`${key}shared_chunks_per_s`] = Math.round(sharedRate);
    figures[`${key}service_chunks_per_s`] = Math.round(ownRate);
    figures[`${key}shared_text_frames`] = median(sharedRuns.map((r) => r.frames));
    figures[`${key}service_text_frames`] = median(ownRuns.map((r) => r.frames));
    figures[`${key}ratio`] = Math.round((sharedRate / ownRate) * 100) / 100;
  }
  console.log(JSON.stringify({ bench: "share", chunks: CHUNKS, rounds: ROUNDS, ...figures, goal: LIMITS.share.ratio }));
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
