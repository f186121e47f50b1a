import { afterEach, expect, test } from "bun:test";
import { streamChat } from "../../src/model/client.ts";
import type { Endpoint } from "../../src/model/endpoint.ts";
import type { ModelError } from "../../src/model/errors.ts";

// The engine's tests (test/engine/context.test.ts) send each dialect's overflow as an HTTP answer;
// these are the other shapes: inside a 200 stream, and the answers that only look like one.

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function serve(answer: () => Response): Endpoint {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: answer });
  closers.push(() => server.stop(true));
  return { name: "test", baseUrl: `http://127.0.0.1:${server.port}/v1`, apiKey: null };
}

async function failure(endpoint: Endpoint): Promise<ModelError | null> {
  const request = { model: "m", messages: [{ role: "user" as const, content: "hi" }], effort: "off" as const };
  for await (const event of streamChat(endpoint, request, { retry: { retries: 0 } })) if (event.type === "error") return event.error;
  return null;
}

test("an overflow sent inside a 200 stream before any token (vLLM, OpenRouter) is a context overflow", async () => {
  const chunk = { error: { message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.", code: 400 } };
  const endpoint = serve(() => new Response(`data: ${JSON.stringify(chunk)}\n\n`, { headers: { "content-type": "text/event-stream" } }));
  const error = await failure(endpoint);
  expect(error?.kind).toBe("context_overflow");
  expect(error?.message).toContain("maximum context length is 4096 tokens");
});

test("a rate limit that speaks of tokens (Groq, OpenAI: tokens per minute) is a rate limit, not an overflow", async () => {
  const body = { error: { message: "Rate limit reached for model in organization on tokens per minute (TPM): Limit 6000, Requested 9000. Please reduce the length of the messages.", code: "rate_limit_exceeded" } };
  const error = await failure(serve(() => Response.json(body, { status: 413 })));
  expect(error?.kind).toBe("bad_request");
  const limited = await failure(serve(() => Response.json(body, { status: 429 })));
  expect(limited?.kind).toBe("rate_limit");
});
