// The engine's streaming path: the scripted model streams 20,000 small text chunks; we count the
// chunks per second that reach a bus subscriber, beside the raw SSE rate a plain client reads from
// the same server in the same run. Rates are taken over the stream (first chunk to last), so the
// server's time to build its answer counts for neither; the whole turn's time is printed beside.
// The same again for the heaviest replay fixture (test/model/fixtures/heavy.ts: a token a chunk,
// \r\n, keep-alive comments and blank lines between the chunks), served by a server of its own
// in writes of a few events; and for each native API's replay (Messages: bench/messages-replay.ts,
// Responses: bench/responses-replay.ts)
// the same bytes read plainly and through a turn. Each rate is taken twice: over the wall clock (`ratio`) and over
// the process's CPU time (`cpu_ratio`: the machine's load moves it far less; a wall ratio well
// below it means the path waits on something). One JSON line; goal: every ratio ≥ 0.8 (the limits
// are bench/goals.ts's). Beside them: the first step
// request's size (system prompt and tool schemas, in bytes), and a step's three read-only calls
// against the same calls one after another (bench/parallel-reads.ts; goal ≤ 0.6); and the cost of a
// no-op PreToolUse and PostToolUse hook on one call, beside `sh -c true` twice (bench/hook-cost.ts;
// goal: about the processes' own start in the sandbox, nothing more; and that start at most 2.5×
// a bare bwrap's: what is left is the PID namespace, root's fresh /dev and read-only /sys).
import { firstRequestBytes, parallelReads } from "./parallel-reads.ts";
import { hookCost } from "./hook-cost.ts";
import { firstRequestTokens, PROMPT_TOKENS_GOAL } from "./prompt-weight.ts";
import { type EngineHarness, engineHarness, isStep, step } from "../test/support/engine.ts";
import { heavyBody } from "../test/model/fixtures/heavy.ts";
import { LIMITS } from "./goals.ts";
import { messagesReplay } from "./messages-replay.ts";
import { responsesReplay } from "./responses-replay.ts";
import { type RawRead, dialect, rates } from "./stream-rates.ts";

const CHUNKS = 20_000;
const RUNS = 7;
const chunks = Array.from({ length: CHUNKS }, (_, i) => `w${i % 10} `);

/** The chat-completions step a plain client posts, and its text chunks. */
const chatRead = (url: string): RawRead => ({
  url: `${url}/chat/completions`,
  body: { model: "test-model", stream: true, messages: [{ role: "user", content: "go" }], tools: [{ type: "function", function: { name: "x", parameters: {} } }] },
  isText: (event) => !!(event as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content,
});

/** The heavy fixture's server: steps get the heavy stream in writes of 16 events; anything else goes to the harness's model. */
const heavyPieces = (() => {
  const events = heavyBody(CHUNKS, ["w0 ", "w1 ", "w2 ", "w3 ", "w4 "]).split(/(?<=\r\n\r\n)/);
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < events.length; i += 16) pieces.push(new TextEncoder().encode(events.slice(i, i + 16).join("")));
  return pieces;
})();
let heavyHarness: EngineHarness | null = null;
const heavyServer = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(req) {
    if (!heavyHarness) return new Response("not ready", { status: 503 });
    if (req.method !== "POST" || !isStep((await req.clone().json()) as never)) return heavyHarness.model.handle(req);
    const stream = new ReadableStream({
      type: "direct",
      async pull(controller) {
        for (const piece of heavyPieces) {
          controller.write(piece);
          await controller.flush();
        }
        controller.close();
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream" } });
  },
});
const heavyUrl = `http://127.0.0.1:${heavyServer.port}/v1`;
const messages = await messagesReplay(chunks);
const responses = await responsesReplay(chunks);

// The harness checks every event against its schema in tests; a benchmark measures the engine alone.
const h = await engineHarness({ checkEvents: false });
heavyHarness = await engineHarness({ checkEvents: false, config: { connections: { test: { base_url: heavyUrl } } } });
try {
  const cleanRuns = await dialect(h, chatRead(h.model.url), CHUNKS, () => h.model.push(step({ text: chunks })));
  const heavyRuns = await dialect(heavyHarness, chatRead(heavyUrl), CHUNKS, () => {});
  const messagesRuns = await dialect(messages.harness, messages.raw, CHUNKS, () => {});
  const responsesRuns = await dialect(responses.harness, responses.raw, CHUNKS, () => {});
  for (let i = 0; i < RUNS; i++) {
    await cleanRuns.run(i);
    await heavyRuns.run(i);
    await messagesRuns.run(i);
    await responsesRuns.run(i);
  }
  const clean = rates(cleanRuns, CHUNKS);
  const heavy = rates(heavyRuns, CHUNKS);
  const anthropic = rates(messagesRuns, CHUNKS);
  const openai = rates(responsesRuns, CHUNKS);
  const first = firstRequestBytes(h);
  const firstTokens = await firstRequestTokens(h);
  const reads = await parallelReads(h, RUNS);
  const hooks = await hookCost(RUNS);
  console.log(
    JSON.stringify({
      bench: "engine",
      chunks: CHUNKS,
      runs: RUNS,
      bus_chunks_per_s: Math.round(clean.engineRate),
      raw_sse_chunks_per_s: Math.round(clean.rawRate),
      ratio: clean.ratio,
      bus_chunks_per_cpu_s: Math.round(clean.engineCpuRate),
      raw_sse_chunks_per_cpu_s: Math.round(clean.rawCpuRate),
      cpu_ratio: clean.cpuRatio,
      turn_ms: Math.round(clean.turn),
      raw_request_ms: Math.round(clean.rawTotal),
      heavy_bus_chunks_per_s: Math.round(heavy.engineRate),
      heavy_raw_sse_chunks_per_s: Math.round(heavy.rawRate),
      heavy_ratio: heavy.ratio,
      heavy_cpu_ratio: heavy.cpuRatio,
      heavy_turn_ms: Math.round(heavy.turn),
      messages_bus_chunks_per_s: Math.round(anthropic.engineRate),
      messages_raw_sse_chunks_per_s: Math.round(anthropic.rawRate),
      messages_ratio: anthropic.ratio,
      messages_cpu_ratio: anthropic.cpuRatio,
      messages_turn_ms: Math.round(anthropic.turn),
      responses_bus_chunks_per_s: Math.round(openai.engineRate),
      responses_raw_sse_chunks_per_s: Math.round(openai.rawRate),
      responses_ratio: openai.ratio,
      responses_cpu_ratio: openai.cpuRatio,
      responses_turn_ms: Math.round(openai.turn),
      goal: LIMITS.engine.ratio,
      first_request_system_bytes: first.system_bytes,
      first_request_tools_bytes: first.tools_bytes,
      first_request_bytes: first.bytes,
      first_request_tokens_estimated: firstTokens.estimated,
      first_request_tokens_o200k: firstTokens.o200k,
      first_request_tokens_goal: PROMPT_TOKENS_GOAL,
      reads_together_ms: reads.together_ms,
      reads_one_after_another_ms: reads.one_after_another_ms,
      reads_ratio: reads.ratio,
      reads_goal: LIMITS.engine.reads_ratio,
      hook_call_with_hooks_ms: hooks.with_hooks_ms,
      hook_call_without_hooks_ms: hooks.without_hooks_ms,
      hook_pair_extra_ms: hooks.hooks_extra_ms,
      sh_true_twice_ms: hooks.sh_true_twice_ms,
      sandboxed_sh_true_twice_ms: hooks.sandboxed_sh_true_twice_ms,
      bare_bwrap_sh_true_twice_ms: hooks.bare_bwrap_sh_true_twice_ms,
      sandbox_start_ratio: Math.round((hooks.sandboxed_sh_true_twice_ms / hooks.bare_bwrap_sh_true_twice_ms) * 100) / 100,
      hook_pair_goal: LIMITS.engine.hook_pair_vs_sandboxed_sh,
      sandbox_start_goal: LIMITS.engine.sandbox_start_ratio,
    }),
  );
} finally {
  await h.close();
  await heavyHarness.close();
  heavyServer.stop(true);
  await messages.close();
  await responses.close();
}
