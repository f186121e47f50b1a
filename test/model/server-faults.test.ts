/**
 * A model server that hangs or fails mid-stream: the tools probe gives up within its bound and says
 * so, and an overflow inside a 200 stream is said as the window filled.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { streamChat } from "../../src/model/client.ts";
import { probeTools } from "../../src/model/discovery-probe.ts";
import type { Endpoint } from "../../src/model/endpoint.ts";
import type { ModelEvent } from "../../src/model/events.ts";

let server: ReturnType<typeof Bun.serve> | null = null;
afterEach(() => {
  server?.stop(true);
  server = null;
});

function serve(fetch: (req: Request) => Response | Promise<Response>): Endpoint {
  server = Bun.serve({ port: 0, idleTimeout: 0, fetch });
  return { name: "test", baseUrl: `http://127.0.0.1:${server.port}/v1`, apiKey: null };
}

/** An answer that never comes: the request is held until the client gives up. */
const never = (req: Request) => new Promise<Response>((resolve) => req.signal.addEventListener("abort", () => resolve(new Response(""))));

/** Headers at once, then a body that never ends. */
const headersOnly = () =>
  new Response(new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) }), { headers: { "content-type": "application/json" } });

describe("lembas doctor --probe against a server that hangs", () => {
  test("no answer at all: tools unknown, said as a server that did not answer in time (not as a request someone stopped)", async () => {
    const endpoint = serve(never);
    // The server never answers: a probe that did not give up at its 300 ms would time the test out.
    const probed = await probeTools(endpoint, "m", { timeoutMs: 300 });
    expect(probed).toEqual({ tools: "unknown", said: `the model server at ${endpoint.baseUrl} did not answer within 0.3 s` });
  }, 30_000);

  test("a 200 whose body never ends is no proof that tools work", async () => {
    const endpoint = serve(headersOnly);
    const probed = await probeTools(endpoint, "m", { timeoutMs: 300 });
    expect(probed.tools).toBe("unknown");
    expect(probed.said).toContain("did not answer within");
  });
});

describe("an overflow inside a 200 stream after the reply began", () => {
  test("llama.cpp's error line after some text: the text, then a context_overflow (not a plain cut) that names what the server said", async () => {
    // llama.cpp server: a stream that fills n_ctx mid-reply ends with an error line of type exceed_context_size_error.
    const endpoint = serve(
      () =>
        new Response(
          `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "Partial" }, finish_reason: null }] })}\n\n` +
            `error: ${JSON.stringify({ code: 400, message: "the request exceeds the available context size, try increasing it", type: "exceed_context_size_error" })}\n\n`,
          { headers: { "content-type": "text/event-stream" } },
        ),
    );
    const events: ModelEvent[] = [];
    for await (const e of streamChat(endpoint, { model: "m", messages: [{ role: "user", content: "hi" }], effort: "off" }, { retry: { retries: 0 } })) events.push(e);
    expect(events[0]).toEqual({ type: "text", delta: "Partial" });
    const last = events.at(-1);
    expect(last?.type).toBe("error");
    if (last?.type !== "error") return;
    expect(last.error.kind).toBe("context_overflow");
    expect(last.error.message).toContain("stopped mid-reply: the request exceeds the available context size");
    expect(last.error.message).toContain("filled the model's window");
    expect(events.filter((e) => e.type === "retry")).toHaveLength(0);
  });
});
