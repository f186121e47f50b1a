import { afterEach, describe, expect, test } from "bun:test";
import type { Endpoint } from "../../src/model/endpoint.ts";
import { listModels, parseList, probeLocal } from "../../src/model/models.ts";

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function serve(fetch: (req: Request) => Response | Promise<Response>): number {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch });
  closers.push(() => server.stop(true));
  const port = server.port;
  if (port === undefined) throw new Error("no port");
  return port;
}

async function deadPort(): Promise<number> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = server.port ?? 1;
  await server.stop(true);
  return port;
}

const endpoint = (port: number, apiKey: string | null = null): Endpoint => ({ name: "test", baseUrl: `http://127.0.0.1:${port}/v1`, apiKey });
const list = (data: unknown[]) => JSON.stringify({ object: "list", data });

describe("parseList: what servers return", () => {
  test("LLeMbas: kind sorts chat from embedding; other kinds are ignored; provider is kept", () => {
    const parsed = parseList(
      list([
        { id: "deepseek/deepseek-flash", kind: "chat", provider: "deepseek", context_length: 128000 },
        { id: "openai/text-embedding-3-small", kind: "embedding", provider: "openai" },
        { id: "openai/whisper", kind: "stt" },
        { id: "openai/tts", kind: "tts" },
        { id: "openai/dall-e", kind: "image" },
      ]),
    );
    expect(parsed).toEqual({
      chat: [{ id: "deepseek/deepseek-flash", provider: "deepseek", contextLength: 128000, contextFrom: "context_length" }],
      embedding: [{ id: "openai/text-embedding-3-small", provider: "openai" }],
    });
  });

  const contexts: [string, object, number | undefined][] = [
    ["vLLM max_model_len", { id: "m", owned_by: "vllm", max_model_len: 32768 }, 32768],
    ["OpenRouter context_length", { id: "m", context_length: 200000, top_provider: { context_length: 100000 } }, 200000],
    ["OpenRouter top_provider only", { id: "m", top_provider: { context_length: 100000 } }, 100000],
    ["Groq context_window", { id: "m", context_window: 131072 }, 131072],
    ["LM Studio loaded over max", { id: "m", type: "llm", max_context_length: 131072, loaded_context_length: 8192 }, 8192],
    ["LM Studio max_context_length", { id: "m", type: "llm", max_context_length: 131072 }, 131072],
    ["llama.cpp meta.n_ctx_train", { id: "m", owned_by: "llamacpp", meta: { n_ctx_train: 40960, n_vocab: 151936 } }, 40960],
    ["llama.cpp meta.n_ctx over n_ctx_train", { id: "m", meta: { n_ctx: 8192, n_ctx_train: 40960 } }, 8192],
    ["n_ctx", { id: "m", n_ctx: 4096 }, 4096],
    ["Ollama: nothing", { id: "qwen2.5-coder:7b", object: "model", created: 1, owned_by: "library" }, undefined],
    ["junk is ignored, not fatal", { id: "m", context_length: "lots", meta: "x" }, undefined],
  ];
  for (const [server, entry, contextLength] of contexts) {
    test(`context length: ${server}`, () => {
      expect(parseList(list([entry]))?.chat[0]?.contextLength).toBe(contextLength);
    });
  }

  test("without kind, LM Studio's type or an id naming embed marks embedding models", () => {
    const parsed = parseList(list([{ id: "qwen" }, { id: "nomic-embed-text:latest" }, { id: "text-model", type: "embeddings" }]));
    expect(parsed?.chat.map((m) => m.id)).toEqual(["qwen"]);
    expect(parsed?.embedding.map((m) => m.id)).toEqual(["nomic-embed-text:latest", "text-model"]);
  });

  test("vision where the entry says", () => {
    const parsed = parseList(
      list([
        { id: "a", architecture: { input_modalities: ["text", "image"] } },
        { id: "b", architecture: { input_modalities: ["text"] } },
        { id: "c", meta: { modalities: { vision: true } } },
        { id: "d", type: "vlm" },
        { id: "e" },
      ]),
    );
    expect(parsed?.chat.map((m) => m.vision)).toEqual([true, false, true, true, undefined]);
  });

  test("a bare array is a list; entries without an id are skipped; other shapes are not lists", () => {
    expect(parseList(JSON.stringify([{ id: "a" }, { name: "no id" }]))?.chat).toEqual([{ id: "a" }]);
    expect(parseList('{"models": []}')).toBeNull();
    expect(parseList("<html>")).toBeNull();
  });
});

describe("listModels", () => {
  test("GETs {baseUrl}/models with the key", async () => {
    const seen = { auth: null as string | null, path: "" };
    const port = serve((req) => {
      seen.auth = req.headers.get("authorization");
      seen.path = new URL(req.url).pathname;
      return new Response(list([{ id: "a", kind: "chat" }]));
    });
    const listed = await listModels(endpoint(port, "tok-123"));
    expect(listed).toEqual({ ok: true, value: { chat: [{ id: "a" }], embedding: [] } });
    expect(seen).toEqual({ auth: "Bearer tok-123", path: "/v1/models" });
  });

  test("401 is an auth error", async () => {
    const port = serve(() => Response.json({ detail: "invalid token" }, { status: 401 }));
    const listed = await listModels(endpoint(port, "tok-123"));
    expect(!listed.ok && listed.error.kind).toBe("auth");
    expect(!listed.ok && listed.error.message).toContain("invalid token");
  });

  test("a page that is not a list is malformed", async () => {
    const port = serve(() => new Response("<html>hello</html>"));
    const listed = await listModels(endpoint(port));
    expect(!listed.ok && listed.error.message).toBe(`the model server at http://127.0.0.1:${port}/v1 answered /models with something that is not a model list`);
  });

  test("a server that does not answer in time is unreachable", async () => {
    const port = serve(() => new Promise<Response>(() => {}));
    const listed = await listModels(endpoint(port), { timeoutMs: 50 });
    expect(!listed.ok && listed.error.kind).toBe("unreachable");
    expect(!listed.ok && listed.error.message).toBe(`the model server at http://127.0.0.1:${port}/v1 did not list its models within 50 ms`);
  });

  test("connection refused is unreachable", async () => {
    const port = await deadPort();
    const listed = await listModels(endpoint(port));
    expect(!listed.ok && listed.error.message).toBe(`the model server at http://127.0.0.1:${port}/v1 did not answer: connection refused`);
  });
});

describe("probeLocal", () => {
  test("finds the first port in the given order that answers /v1/models", async () => {
    const dead = await deadPort();
    const hanging = serve(() => new Promise<Response>(() => {}));
    const notModels = serve(() => new Response("nope", { status: 404 }));
    const first = serve(() => new Response(list([{ id: "qwen" }])));
    const second = serve(() => new Response(list([{ id: "llama" }])));
    // The hanging port never answers: a probe that waited on it past its 200 ms would time the test out.
    const found = await probeLocal([dead, hanging, notModels, first, second], 200);
    expect(found).toEqual({ port: first, baseUrl: `http://127.0.0.1:${first}/v1`, models: { chat: [{ id: "qwen" }], embedding: [] } });
  }, 30_000);

  test("null when nothing answers", async () => {
    expect(await probeLocal([await deadPort()], 100)).toBeNull();
  });
});
