// The engine's streaming path: the scripted model streams 20,000 small text chunks; we count the
// chunks per second that reach a bus subscriber, beside the raw SSE rate a plain client reads from
// the same server in the same run. Rates are taken over the stream (first chunk to last), so the
// server's time to build its answer counts for neither; the whole turn's time is printed beside.
// One JSON line; goal: ratio ≥ 0.8.
import { engineHarness, step } from "../test/support/engine.ts";

const CHUNKS = 20_000;
const RUNS = 5;
const chunks = Array.from({ length: CHUNKS }, (_, i) => `w${i % 10} `);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

type Timing = { stream: number; total: number };

/** A plain client: fetch, split SSE lines, parse each chunk's JSON, count content deltas. */
async function rawRun(url: string): Promise<Timing> {
  const started = performance.now();
  let first = 0;
  let last = 0;
  const response = await fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "test-model", stream: true, messages: [{ role: "user", content: "go" }], tools: [{ type: "function", function: { name: "x", parameters: {} } }] }),
  });
  const decoder = new TextDecoder();
  let buffer = "";
  let count = 0;
  for await (const part of response.body ?? []) {
    buffer += decoder.decode(part, { stream: true });
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      const chunk = JSON.parse(line.slice(6)) as { choices?: { delta?: { content?: string } }[] };
      if (!chunk.choices?.[0]?.delta?.content) continue;
      count++;
      last = performance.now();
      if (count === 1) first = last;
    }
  }
  if (count !== CHUNKS) throw new Error(`raw client saw ${count} chunks`);
  return { stream: last - first, total: performance.now() - started };
}

// The harness checks every event against its schema in tests; a benchmark measures the engine alone.
const h = await engineHarness({ checkEvents: false });
try {
  const session = await h.session();
  let seen = 0;
  let first = 0;
  let last = 0;
  session.bus.subscribe((e) => {
    if (e.type !== "text") return;
    seen++;
    last = performance.now();
    if (seen === 1) first = last;
  });
  // Warm up both paths once.
  h.model.push(step({ text: chunks }));
  await rawRun(h.model.url);
  h.model.push(step({ text: chunks }));
  await session.prompt({ text: "warm up" });
  await session.idle();

  const raw: Timing[] = [];
  const engine: Timing[] = [];
  for (let i = 0; i < RUNS; i++) {
    h.model.push(step({ text: chunks }));
    raw.push(await rawRun(h.model.url));
    h.model.push(step({ text: chunks }));
    seen = 0;
    const started = performance.now();
    await session.prompt({ text: `run ${i}` });
    engine.push({ stream: last - first, total: performance.now() - started });
    if (seen !== CHUNKS) throw new Error(`the bus saw ${seen} chunks`);
  }
  const rawRate = CHUNKS / (median(raw.map((t) => t.stream)) / 1000);
  const engineRate = CHUNKS / (median(engine.map((t) => t.stream)) / 1000);
  console.log(
    JSON.stringify({
      bench: "engine",
      chunks: CHUNKS,
      runs: RUNS,
      bus_chunks_per_s: Math.round(engineRate),
      raw_sse_chunks_per_s: Math.round(rawRate),
      ratio: Math.round((engineRate / rawRate) * 100) / 100,
      turn_ms: Math.round(median(engine.map((t) => t.total))),
      raw_request_ms: Math.round(median(raw.map((t) => t.total))),
      goal: 0.8,
    }),
  );
} finally {
  await h.close();
}
