// bench/engine.ts's read-only calls: three greps of one step against the same three greps made in
// three steps, one after another. Each grep reads a named pipe whose writer, once the pipe is
// opened, waits DELAY seconds before it writes: a read that waits on I/O (a slow disk, a network
// file system, a fetch), the same time from each call's own start whatever ran before it.
// Figures from the bus's tool events: a step's span (first tool_start to last tool_end) against
// the sum of the sequential calls' own times (tool_start to tool_end), so the model's round trips
// between the sequential steps count for neither.
import { join } from "node:path";
import type { EngineHarness } from "../test/support/engine.ts";
import { step } from "../test/support/engine.ts";

const DELAY = "0.3";
const CALLS = 3;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

export type ParallelReads = { together_ms: number; one_after_another_ms: number; ratio: number };

export async function parallelReads(h: EngineHarness, runs: number): Promise<ParallelReads> {
  const session = await h.session();
  const times = new Map<string, { start: number; end: number }>();
  session.bus.subscribe((e) => {
    if (e.type === "tool_start") times.set(e.callId, { start: performance.now(), end: NaN });
    if (e.type === "tool_end") {
      const t = times.get(e.callId);
      if (t) t.end = performance.now();
    }
  });
  let round = 0;
  /** Fresh pipes and writers for one turn; the ids of its calls. */
  const pipes = (): { ids: string[]; calls: { id: string; name: string; arguments: object }[]; writers: Bun.Subprocess[] } => {
    round++;
    const ids = Array.from({ length: CALLS }, (_, i) => `r${round}_${i}`);
    const writers = ids.map((id) => {
      const path = join(h.project, `${id}.fifo`);
      if (Bun.spawnSync(["mkfifo", path]).exitCode !== 0) throw new Error(`mkfifo ${path} failed`);
      return Bun.spawn(["sh", "-c", 'exec 3>"$1"; sleep "$2"; echo hit >&3', "sh", path, DELAY], { stdout: "ignore", stderr: "ignore" });
    });
    return { ids, writers, calls: ids.map((id) => ({ id, name: "grep", arguments: { pattern: "hit", path: `${id}.fifo` } })) };
  };
  const turn = async (p: ReturnType<typeof pipes>): Promise<{ start: number; end: number }[]> => {
    await session.prompt({ text: `round ${round}` });
    await Promise.all(p.writers.map((w) => w.exited));
    const seen = p.ids.map((id) => times.get(id));
    if (seen.some((t) => !t || Number.isNaN(t.end))) throw new Error(`round ${round}: not every grep ran`);
    return seen as { start: number; end: number }[];
  };
  const together: number[] = [];
  const apart: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const one = pipes();
    h.model.push(step({ toolCalls: one.calls }), step({ text: "done" }));
    const t1 = await turn(one);
    const many = pipes();
    h.model.push(...many.calls.map((call) => step({ toolCalls: [call] })), step({ text: "done" }));
    const t2 = await turn(many);
    // The first round warms both paths up.
    if (i === 0) continue;
    together.push(Math.max(...t1.map((t) => t.end)) - Math.min(...t1.map((t) => t.start)));
    apart.push(t2.reduce((sum, t) => sum + (t.end - t.start), 0));
  }
  const t = median(together);
  const a = median(apart);
  return { together_ms: Math.round(t), one_after_another_ms: Math.round(a), ratio: Math.round((t / a) * 100) / 100 };
}

/** The first step request's weight: its system prompt and its tool schemas, in bytes, as the model received them. */
export function firstRequestBytes(h: EngineHarness): { system_bytes: number; tools_bytes: number; bytes: number } {
  // The bench's plain SSE client sends requests of its own to the same server: they carry no system prompt.
  const first = h.model.requests.find((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0 && r.body.messages?.[0]?.role === "system");
  if (!first) throw new Error("the model received no step request");
  const system = first.body.messages?.find((m) => m.role === "system")?.content;
  const systemBytes = Buffer.byteLength(typeof system === "string" ? system : JSON.stringify(system ?? ""));
  const toolsBytes = Buffer.byteLength(JSON.stringify(first.body.tools));
  return { system_bytes: systemBytes, tools_bytes: toolsBytes, bytes: systemBytes + toolsBytes };
}
