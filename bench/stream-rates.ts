// What bench/engine.ts measures of a streamed reply, for any of the model APIs: a plain client's
// read of the SSE bytes (fetch, split lines, parse each event's JSON, count the text deltas) beside
// a turn's text events reaching a bus subscriber, wall clock and CPU time, first chunk to last.
import type { EngineHarness } from "../test/support/engine.ts";

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
/** The process's CPU time so far (user and system, every thread), in ms. */
export const cpuMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

/**
 * A read of the stream: wall clock and CPU time from the first chunk to the last, and the whole
 * request's wall clock. The CPU time is what the path costs whatever else the machine runs (the
 * server is in this process: its share is the same for both readers).
 */
export type Timing = { stream: number; cpu: number; total: number };

/** Where a plain client posts, what, and which parsed `data:` events are text chunks. */
export type RawRead = { url: string; body: unknown; isText(event: unknown): boolean };

/** A plain client: fetch, split SSE lines, parse each event's JSON, count the text chunks. */
export async function rawRun(read: RawRead, chunks: number): Promise<Timing> {
  const started = performance.now();
  let first = 0;
  let last = 0;
  let cpuFirst = 0;
  let cpuLast = 0;
  const response = await fetch(read.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(read.body) });
  const decoder = new TextDecoder();
  let buffer = "";
  let count = 0;
  for await (const part of response.body ?? []) {
    buffer += decoder.decode(part, { stream: true });
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const raw of lines) {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      if (!read.isText(JSON.parse(line.slice(6)))) continue;
      count++;
      last = performance.now();
      if (count === 1) {
        first = last;
        cpuFirst = cpuMs();
      } else if (count === chunks) cpuLast = cpuMs();
    }
  }
  if (count !== chunks) throw new Error(`raw client saw ${count} chunks`);
  return { stream: last - first, cpu: cpuLast - cpuFirst, total: performance.now() - started };
}

export type Dialect = { raw: Timing[]; engine: Timing[]; run(i: number): Promise<void> };

/**
 * A dialect's runs: each pushes `queue()` and reads the stream with the raw client, then again
 * through a turn. The heap is collected before each read, so what one read left behind is not
 * paid by the next (the runs of the dialects interleave).
 */
export async function dialect(h: EngineHarness, raw: RawRead, chunks: number, queue: () => void): Promise<Dialect> {
  // The harness keeps no log of this session's events: the raw client keeps none either, and a
  // client of the engine forwards its events, it does not hold every one of a turn.
  const session = await h.session({ keepEvents: false });
  let seen = 0;
  let first = 0;
  let last = 0;
  let cpuFirst = 0;
  let cpuLast = 0;
  session.bus.subscribe((e) => {
    if (e.type !== "text") return;
    seen++;
    last = performance.now();
    if (seen === 1) {
      first = last;
      cpuFirst = cpuMs();
    } else if (seen === chunks) cpuLast = cpuMs();
  });
  // Warm up both paths once.
  queue();
  await rawRun(raw, chunks);
  queue();
  await session.prompt({ text: "warm up" });
  await session.idle();
  const d: Dialect = {
    raw: [],
    engine: [],
    async run(i) {
      queue();
      Bun.gc(true);
      d.raw.push(await rawRun(raw, chunks));
      queue();
      Bun.gc(true);
      seen = 0;
      const started = performance.now();
      await session.prompt({ text: `run ${i}` });
      d.engine.push({ stream: last - first, cpu: cpuLast - cpuFirst, total: performance.now() - started });
      if (seen !== chunks) throw new Error(`the bus saw ${seen} chunks`);
    },
  };
  return d;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export function rates(d: Dialect, chunks: number) {
  const rawRate = chunks / (median(d.raw.map((t) => t.stream)) / 1000);
  const engineRate = chunks / (median(d.engine.map((t) => t.stream)) / 1000);
  const rawCpuRate = chunks / (median(d.raw.map((t) => t.cpu)) / 1000);
  const engineCpuRate = chunks / (median(d.engine.map((t) => t.cpu)) / 1000);
  return {
    engineRate,
    rawRate,
    ratio: round2(engineRate / rawRate),
    engineCpuRate,
    rawCpuRate,
    cpuRatio: round2(engineCpuRate / rawCpuRate),
    turn: median(d.engine.map((t) => t.total)),
    rawTotal: median(d.raw.map((t) => t.total)),
  };
}

/**
 * A server that streams `pieces` (a recorded body in writes of a few events) to every step posted
 * to `path` (a request with tools), and sends anything else to the harness's scripted model, or,
 * for `path` without tools (a title), `small`.
 */
export function replayServer(path: string, pieces: Uint8Array[], small: string, harness: () => EngineHarness | null): { url: string; stop(): void } {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const h = harness();
      if (!h) return new Response("not ready", { status: 503 });
      if (req.method !== "POST" || !new URL(req.url).pathname.endsWith(path)) return h.model.handle(req);
      const body = (await req.json()) as { tools?: unknown[] };
      if (!body.tools?.length) return new Response(small, { headers: { "content-type": "text/event-stream" } });
      const stream = new ReadableStream({
        type: "direct",
        async pull(controller) {
          for (const piece of pieces) {
            controller.write(piece);
            await controller.flush();
          }
          controller.close();
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/v1`, stop: () => server.stop(true) };
}

/** A body split into writes of `per` SSE events (each ending in a blank line). */
export function inPieces(body: string, per = 16): Uint8Array[] {
  const events = body.split(/(?<=\n\n)/);
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < events.length; i += per) pieces.push(new TextEncoder().encode(events.slice(i, i + per).join("")));
  return pieces;
}
