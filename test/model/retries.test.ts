import { afterEach, describe, expect, test } from "bun:test";
import { Connection } from "../../src/config/schema.ts";
import { streamChatBatches, type StreamOptions } from "../../src/model/client.ts";
import { type Endpoint, endpointFromConnection } from "../../src/model/endpoint.ts";
import type { ModelEvent } from "../../src/model/events.ts";
import { DEFAULT_IDLE, IdleWatch, idleLimits, idleSetting } from "../../src/model/idle.ts";
import { sseBatches } from "../../src/model/sse.ts";
import { DEFAULT_RETRY, parseDuration, serverWait } from "../../src/model/retry.ts";
import type { ChatRequest } from "../../src/model/request.ts";

// Real HTTP servers in the test, read by the client the product uses (streamChatBatches).

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

type Handler = (req: Request, n: number) => Response | Promise<Response>;

function serve(handler: Handler): { url: string; count: () => number } {
  let n = 0;
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: (req) => handler(req, n++) });
  closers.push(() => server.stop(true));
  return { url: `http://127.0.0.1:${server.port}/v1`, count: () => n };
}

const encoder = new TextEncoder();
const frame = (data: object | string) => encoder.encode(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
const delta = (d: object, finish: string | null = null) => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] });
const SSE = { "content-type": "text/event-stream" };

/** A whole reply saying `text`. */
function reply(text: string): Response {
  const body = [delta({ role: "assistant" }), delta({ content: text }), delta({}, "stop")].map((f) => `data: ${JSON.stringify(f)}\n\n`).join("");
  return new Response(`${body}data: [DONE]\n\n`, { headers: SSE });
}

/** Headers, then `frames`, then nothing: the connection stays open until the client gives up. */
function thenSilence(frames: Uint8Array[] = []): Response {
  return new Response(
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const f of frames) c.enqueue(f);
      },
    }),
    { headers: SSE },
  );
}

/** Headers, then `frames`, then the connection is dropped. */
function thenCut(frames: Uint8Array[]): Response {
  return new Response(
    new ReadableStream<Uint8Array>({
      async start(c) {
        for (const f of frames) c.enqueue(f);
        await Bun.sleep(20);
        // Erroring with no reason resets the connection without a log line (as test/support/model.ts does).
        c.error(undefined);
      },
    }),
    { headers: SSE },
  );
}

const endpoint = (url: string, idleSeconds?: number): Endpoint => ({ name: "test", baseUrl: url, apiKey: null, idle: idleSetting("test", idleSeconds) });
const request: ChatRequest = { model: "test-model", messages: [{ role: "user", content: "hi" }], effort: "off" };

/** Waits are recorded, not slept; no jitter unless a test asks. */
function recorded(waits: number[] = [], over: StreamOptions["retry"] = {}): StreamOptions["retry"] {
  return { sleep: async (ms) => void waits.push(ms), random: () => 0, ...over };
}

async function collect(endpointOf: Endpoint, options: StreamOptions = {}): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const batch of streamChatBatches(endpointOf, request, options)) events.push(...batch);
  return events;
}

const textOf = (events: ModelEvent[]) => events.map((e) => (e.type === "text" ? e.delta : "")).join("");
const retries = (events: ModelEvent[]) => events.flatMap((e) => (e.type === "retry" ? [e] : []));
function errorOf(events: ModelEvent[]) {
  const end = events.at(-1);
  if (end?.type !== "error") throw new Error(`the stream ended with ${JSON.stringify(end)}, not an error`);
  return end.error;
}

describe("retries: the server's wait", () => {
  test("429 with Retry-After in seconds waits that long, then the reply streams", async () => {
    const server = serve((_, n) => (n === 0 ? new Response("slow down", { status: 429, headers: { "retry-after": "3" } }) : reply("hello")));
    const waits: number[] = [];
    const events = await collect(endpoint(server.url), { retry: recorded(waits) });
    expect(waits).toEqual([3000]);
    expect(retries(events).map((r) => [r.attempt, r.retries, r.error.kind])).toEqual([[1, DEFAULT_RETRY.retries, "rate_limit"]]);
    expect(textOf(events)).toBe("hello");
  });

  test("Retry-After as an HTTP date, and OpenAI's retry-after-ms over it", async () => {
    const inFive = new Date(Date.now() + 5000).toUTCString();
    const server = serve((_, n) => {
      if (n === 0) return new Response("", { status: 503, headers: { "retry-after": inFive } });
      if (n === 1) return new Response("", { status: 429, headers: { "retry-after-ms": "250", "retry-after": "9" } });
      return reply("ok");
    });
    const waits: number[] = [];
    const events = await collect(endpoint(server.url), { retry: recorded(waits) });
    expect(waits[0]).toBeGreaterThan(3000);
    expect(waits[0]).toBeLessThanOrEqual(5000);
    expect(waits[1]).toBe(250);
    expect(textOf(events)).toBe("ok");
  });

  test("a 429 without Retry-After waits for the reset of the bucket that is empty (OpenAI's, Groq's headers)", async () => {
    const server = serve((_, n) =>
      n === 0
        ? new Response("", {
            status: 429,
            headers: {
              "x-ratelimit-remaining-requests": "12",
              "x-ratelimit-reset-requests": "6m0s",
              "x-ratelimit-remaining-tokens": "0",
              "x-ratelimit-reset-tokens": "7.66s",
            },
          })
        : reply("ok"),
    );
    const waits: number[] = [];
    await collect(endpoint(server.url), { retry: recorded(waits) });
    expect(waits).toEqual([7660]);
  });

  test("reading the waits: durations, and headers that say nothing usable", () => {
    expect(parseDuration("2m59.56s")).toBe(179_560);
    expect(parseDuration("12ms")).toBe(12);
    expect(parseDuration("1h")).toBe(3_600_000);
    expect(parseDuration("soon")).toBeNull();
    expect(parseDuration("")).toBeNull();
    const full = new Headers({ "x-ratelimit-remaining-tokens": "5", "x-ratelimit-reset-tokens": "1s" });
    expect(serverWait(full, 429)).toBeNull();
    expect(serverWait(new Headers({ "retry-after": "whenever" }), 503)).toBeNull();
    // A 5xx's rate-limit headers describe the account, not the failure.
    expect(serverWait(new Headers({ "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "1s" }), 503)).toBeNull();
  });

  test("a server asking for longer than lembas waits is told at once, not waited for", async () => {
    const server = serve(() => new Response('{"error":{"message":"daily quota"}}', { status: 429, headers: { "retry-after": "7200" } }));
    const waits: number[] = [];
    const events = await collect(endpoint(server.url), { retry: recorded(waits) });
    expect(waits).toEqual([]);
    expect(server.count()).toBe(1);
    expect(errorOf(events).message).toBe(
      `the model server at ${server.url} is limiting requests (HTTP 429: daily quota); it asks to wait 120 min, longer than lembas waits on its own: try again then`,
    );
  });
});

describe("retries: backoff", () => {
  test("503 then 200: backoff doubles, jitter takes up to half off", async () => {
    const server = serve((_, n) => (n < 3 ? new Response("busy", { status: 503 }) : reply("back")));
    const waits: number[] = [];
    const events = await collect(endpoint(server.url), { retry: recorded(waits, { random: () => 0.5 }) });
    expect(waits).toEqual([750, 1500, 3000]);
    expect(textOf(events)).toBe("back");
    expect(server.count()).toBe(4);
  });

  test("by default a failing server is tried for a minute or two in all, not 3.5 s", async () => {
    const server = serve(() => new Response("down", { status: 502 }));
    const waits: number[] = [];
    const events = await collect(endpoint(server.url), { retry: { sleep: async (ms) => void waits.push(ms), random: () => 0 } });
    const total = waits.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(60_000);
    expect(total).toBeLessThanOrEqual(DEFAULT_RETRY.maxTotalMs);
    expect(server.count()).toBe(DEFAULT_RETRY.retries + 1);
    expect(errorOf(events).message).toEndWith(`(tried ${DEFAULT_RETRY.retries + 1} times)`);
  });

  test("retries stop when their waits would pass the budget", async () => {
    const server = serve(() => new Response("down", { status: 500 }));
    const waits: number[] = [];
    const events = await collect(endpoint(server.url), { retry: recorded(waits, { baseDelayMs: 100, maxTotalMs: 700 }) });
    expect(waits).toEqual([100, 200, 400]);
    expect(errorOf(events).message).toEndWith("(tried 4 times)");
  });

  test("a wait is cancelled at once by the signal", async () => {
    const server = serve(() => new Response("", { status: 429, headers: { "retry-after": "60" } }));
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    // A wait the signal did not cut would sit out the server's 60 s and time the test out.
    const events = await collect(endpoint(server.url), { signal: abort.signal });
    expect(errorOf(events).kind).toBe("aborted");
  }, 30_000);
});

describe("silence: the idle timeout", () => {
  test("headers and then nothing: given up after idle_timeout, retried once, then said with how to wait longer", async () => {
    const server = serve(() => thenSilence());
    const started = performance.now();
    const events = await collect(endpoint(server.url, 0.2), { retry: recorded() });
    const elapsed = performance.now() - started;
    expect(retries(events).map((r) => [r.attempt, r.retries, r.error.kind])).toEqual([[1, 1, "timeout"]]);
    const error = errorOf(events);
    expect(error.kind).toBe("timeout");
    expect(error.message).toBe(
      `the model server at ${server.url} went silent for 0.2 s before its reply began; raise idle_timeout (seconds) of connection "test" in config.yaml if it needs longer (tried 2 times)`,
    );
    expect(server.count()).toBe(2);
    // Two idle timeouts were sat out; a client that never gave up would time the test out.
    expect(elapsed).toBeGreaterThanOrEqual(390);
  });

  test("a server that never sends even its headers is given up the same way", async () => {
    const server = serve(() => new Promise<Response>(() => {}));
    const events = await collect(endpoint(server.url, 0.2), { retry: recorded([], { timeoutRetries: 0 }) });
    expect(errorOf(events).message).toStartWith(`the model server at ${server.url} went silent for 0.2 s before its reply began; raise idle_timeout`);
    expect(server.count()).toBe(1);
  });

  test("silence after part of the reply ends it with what arrived, not retried", async () => {
    const server = serve(() => thenSilence([frame(delta({ role: "assistant" })), frame(delta({ content: "half an ans" }))]));
    const events = await collect(endpoint(server.url, 0.2), { retry: recorded() });
    expect(textOf(events)).toBe("half an ans");
    expect(retries(events)).toEqual([]);
    expect(errorOf(events).message).toStartWith(`the model server at ${server.url} went silent for 0.2 s mid-reply`);
    expect(server.count()).toBe(1);
  });

  test("keep-alive comments and slow tokens are life, not silence", async () => {
    const server = serve(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(c) {
              for (let i = 0; i < 6; i++) {
                c.enqueue(encoder.encode(": OPENROUTER PROCESSING\n\n"));
                await Bun.sleep(60);
              }
              c.enqueue(frame(delta({ content: "slow" })));
              await Bun.sleep(120);
              c.enqueue(frame(delta({ content: " but alive" }, "stop")));
              c.enqueue(frame("[DONE]"));
              c.close();
            },
          }),
          { headers: SSE },
        ),
    );
    const events = await collect(endpoint(server.url, 0.2), { retry: recorded() });
    expect(textOf(events)).toBe("slow but alive");
    expect(events.at(-1)).toEqual({ type: "finish", reason: "end_turn" });
  });

  test("a consumer slow to read is not the server's silence", async () => {
    const server = serve(() => reply("a reply read slowly"));
    const events: ModelEvent[] = [];
    for await (const batch of streamChatBatches(endpoint(server.url, 0.1), request, { retry: recorded() })) {
      events.push(...batch);
      await Bun.sleep(250);
    }
    expect(events.at(-1)).toEqual({ type: "finish", reason: "end_turn" });
  });

  test("cancelling during the silence is a cancel, not a timeout", async () => {
    const server = serve(() => thenSilence());
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    const events = await collect(endpoint(server.url, 5), { signal: abort.signal, retry: recorded() });
    expect(errorOf(events).kind).toBe("aborted");
  });

  test("the first byte may take longer than a gap between bytes", async () => {
    const server = serve(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(c) {
              await Bun.sleep(600); // thinking before the first token: longer than a gap may be
              for (let i = 0; i < 4; i++) {
                c.enqueue(frame(delta({ content: `${i}` })));
                await Bun.sleep(30);
              }
              await Bun.sleep(1500); // then silence: longer than a gap may be
              c.close();
            },
          }),
          { headers: SSE },
        ),
    );
    const watch = new IdleWatch({ firstByteMs: 1500, betweenBytesMs: 400 }, undefined);
    const response = await fetch(`${server.url}/chat/completions`, { method: "POST", signal: watch.signal });
    const seen: string[] = [];
    let thrown: unknown = null;
    try {
      for await (const batch of sseBatches(response.body ?? new ReadableStream(), watch)) seen.push(...batch);
    } catch (error) {
      thrown = error;
    }
    watch.stop();
    expect(seen).toHaveLength(4);
    expect(thrown).not.toBeNull();
    expect(watch.timedOut).toEqual({ afterMs: 400 });
  });

  test("the waits: idle_timeout sets both; unset, the first byte may take 3 min and a gap 2 min", () => {
    expect(idleLimits(undefined)).toEqual(DEFAULT_IDLE);
    expect(DEFAULT_IDLE).toEqual({ firstByteMs: 180_000, betweenBytesMs: 120_000 });
    expect(idleLimits(idleSetting("x", 30))).toEqual({ firstByteMs: 30_000, betweenBytesMs: 30_000 });
    const conn = Connection.parse({ base_url: "http://127.0.0.1:1/v1", idle_timeout: 45 });
    expect(endpointFromConnection("box", conn, {}).idle).toEqual({ seconds: 45, hint: 'raise idle_timeout (seconds) of connection "box" in config.yaml if it needs longer' });
  });
});

describe("cuts", () => {
  test("a cut before any text is retried, then the reply streams", async () => {
    const server = serve((_, n) => (n === 0 ? thenCut([frame(delta({ role: "assistant" }))]) : reply("second time")));
    const events = await collect(endpoint(server.url), { retry: recorded() });
    expect(retries(events).map((r) => r.error.kind)).toEqual(["cut"]);
    expect(textOf(events)).toBe("second time");
  });

  test("a cut after some text ends the stream with the text, not retried", async () => {
    const server = serve(() => thenCut([frame(delta({ content: "The answer is" }))]));
    const events = await collect(endpoint(server.url), { retry: recorded() });
    expect(textOf(events)).toBe("The answer is");
    expect(errorOf(events).kind).toBe("cut");
    expect(server.count()).toBe(1);
  });
});

describe("retries: a server that is not there", () => {
  test("connection refused is retried 3 times, quickly, so a stopped local server is said in seconds", async () => {
    const gone = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const url = `http://127.0.0.1:${gone.port}/v1`;
    await gone.stop(true);
    const waits: number[] = [];
    const events = await collect(endpoint(url), { retry: { sleep: async (ms) => void waits.push(ms), random: () => 0 } });
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(retries(events).map((r) => `${r.attempt} of ${r.retries}`)).toEqual(["1 of 3", "2 of 3", "3 of 3"]);
    expect(errorOf(events).message).toBe(`the model server at ${url} did not answer: connection refused (tried 4 times)`);
  });
});

test("a rate limit that outlasts the retries says to try again in a while", async () => {
  const server = serve(() => new Response('{"error":{"message":"busy"}}', { status: 429 }));
  const events = await collect(endpoint(server.url), { retry: recorded([], { retries: 1 }) });
  expect(errorOf(events).message).toBe(`the model server at ${server.url} is limiting requests (HTTP 429: busy) (tried 2 times); try again in a while`);
});
