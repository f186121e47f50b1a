import { afterEach, describe, expect, test } from "bun:test";
import { type DialectId, DIALECTS, dialectById, dialectOf, serverRoot } from "../../src/model/dialects.ts";
import { discover, modelWindow } from "../../src/model/discovery.ts";
import type { Endpoint } from "../../src/model/endpoint.ts";

/**
 * /v1/models bodies as each family's documentation shows them (trimmed to the fields read).
 * The source of each is named beside it.
 */
const LISTINGS: [DialectId, string, unknown, Record<string, string>?][] = [
  // https://github.com/ollama/ollama/blob/main/docs/openai.md (/v1/models), owned_by "library" for library models
  ["ollama", "http://127.0.0.1:11434/v1", { object: "list", data: [{ id: "qwen2.5-coder:7b", object: "model", created: 1733000000, owned_by: "library" }] }],
  // https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md (GET /v1/models)
  [
    "llamacpp",
    "http://10.0.0.5:8081/v1",
    { object: "list", data: [{ id: "qwen3-8b.gguf", object: "model", created: 1735000000, owned_by: "llamacpp", meta: { vocab_type: 2, n_vocab: 151936, n_ctx_train: 40960 } }] },
  ],
  // llama.cpp's server sends "Server: llama.cpp" on every answer; a build whose listing says nothing of itself
  ["llamacpp", "http://10.0.0.5:9000/v1", { object: "list", data: [{ id: "model.gguf", object: "model" }] }, { server: "llama.cpp" }],
  // https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html (ModelCard: owned_by "vllm", root, max_model_len)
  [
    "vllm",
    "http://gpu-box:8000/v1",
    { object: "list", data: [{ id: "Qwen/Qwen2.5-7B-Instruct", object: "model", created: 1735000000, owned_by: "vllm", root: "Qwen/Qwen2.5-7B-Instruct", parent: null, max_model_len: 32768, permission: [] }] },
  ],
  // https://lmstudio.ai/docs/api/openai-api (GET /v1/models)
  ["lmstudio", "http://192.168.1.9:1234/v1", { object: "list", data: [{ id: "qwen2.5-7b-instruct", object: "model", owned_by: "organization_owner" }] }],
  // https://platform.openai.com/docs/api-reference/models/list
  ["openai", "https://api.openai.com/v1", { object: "list", data: [{ id: "gpt-4o", object: "model", created: 1715367049, owned_by: "system" }] }],
  // https://api-docs.deepseek.com/api/list-models
  ["deepseek", "https://api.deepseek.com/v1", { object: "list", data: [{ id: "deepseek-chat", object: "model", owned_by: "deepseek" }] }],
  // https://openrouter.ai/docs/api-reference/list-available-models, here behind a proxy of another name
  [
    "openrouter",
    "https://llm-proxy.example.com/v1",
    {
      data: [
        {
          id: "openai/gpt-4o",
          name: "OpenAI: GPT-4o",
          context_length: 128000,
          architecture: { input_modalities: ["text", "image"], output_modalities: ["text"] },
          top_provider: { context_length: 128000, max_completion_tokens: 16384, is_moderated: true },
          supported_parameters: ["tools", "tool_choice", "max_tokens"],
        },
      ],
    },
  ],
  ["openrouter", "https://openrouter.ai/api/v1", { data: [{ id: "x/y", context_length: 1000 }] }],
  // https://console.groq.com/docs/models (GET /openai/v1/models)
  [
    "groq",
    "https://groq-mirror.example.com/openai/v1",
    { object: "list", data: [{ id: "llama-3.3-70b-versatile", object: "model", created: 1733447754, owned_by: "Meta", active: true, context_window: 131072, public_apps: null, max_completion_tokens: 32768 }] },
  ],
  // https://docs.mistral.ai/api/#tag/models (capabilities, max_context_length)
  [
    "mistral",
    "https://mistral.example.com/v1",
    {
      object: "list",
      data: [
        {
          id: "mistral-large-latest",
          object: "model",
          created: 1732000000,
          owned_by: "mistralai",
          capabilities: { completion_chat: true, function_calling: true, vision: true },
          max_context_length: 131072,
          type: "base",
        },
      ],
    },
  ],
  // https://ai.google.dev/gemini-api/docs/openai#list-models
  ["gemini", "https://generativelanguage.googleapis.com/v1beta/openai", { object: "list", data: [{ id: "models/gemini-2.5-flash", object: "model", owned_by: "google" }] }],
  // https://docs.anthropic.com/en/api/models-list (the base URL of https://docs.anthropic.com/en/api/openai-sdk)
  [
    "anthropic",
    "https://api.anthropic.com/v1",
    { data: [{ type: "model", id: "claude-sonnet-4-20250514", display_name: "Claude Sonnet 4", created_at: "2025-05-22T00:00:00Z" }], has_more: false, first_id: "a", last_id: "a" },
  ],
  // A LLeMbas instance's protocol 2 listing (src/model/refs.ts): kind and provider
  ["lembas", "https://lembas.example.com/v1", { object: "list", data: [{ id: "deepseek/deepseek-flash", kind: "chat", provider: "deepseek", context_length: 128000 }] }],
  ["generic", "https://llm.example.com/v1", { object: "list", data: [{ id: "some-model", object: "model" }] }],
];

describe("dialectOf: a server's family from what it shows", () => {
  for (const [id, baseUrl, listing, headers] of LISTINGS) {
    test(`${id} at ${baseUrl}${headers ? " (by its headers)" : ""}`, () => {
      expect(dialectOf({ baseUrl, listing, headers: headers ? new Headers(headers) : null }).id).toBe(id);
    });
  }

  test("a login is a LLeMbas instance whatever its listing looks like", () => {
    expect(dialectOf({ baseUrl: "http://127.0.0.1:1234/v1", listing: { data: [{ id: "m", owned_by: "organization_owner" }] }, login: true }).id).toBe("lembas");
  });

  test("a local server that says nothing is known by its default port, and only on this machine", () => {
    const bare = { data: [{ id: "m", object: "model" }] };
    expect(dialectOf({ baseUrl: "http://localhost:11434/v1", listing: bare }).id).toBe("ollama");
    expect(dialectOf({ baseUrl: "http://127.0.0.1:8000/v1", listing: bare }).id).toBe("vllm");
    expect(dialectOf({ baseUrl: "http://example.com:11434/v1", listing: bare }).id).toBe("generic");
  });

  test("every row names its sources, and the table has one row per family", () => {
    expect(new Set(DIALECTS.map((d) => d.id)).size).toBe(DIALECTS.length);
    for (const row of DIALECTS) expect(row.sources.length).toBeGreaterThan(0);
    expect(dialectById("mistral").toolCallId?.pattern.test("aB3xK9mP2")).toBe(true);
    expect(dialectById("mistral").toolCallId?.pattern.test("call_123456")).toBe(false);
    expect(dialectById("something-newer").id).toBe("generic");
  });

  test("the server's root is the base URL without its API path", () => {
    expect(serverRoot("http://127.0.0.1:11434/v1")).toBe("http://127.0.0.1:11434");
    expect(serverRoot("https://generativelanguage.googleapis.com/v1beta/openai/")).toBe("https://generativelanguage.googleapis.com");
    expect(serverRoot("https://api.groq.com/openai/v1")).toBe("https://api.groq.com");
  });
});

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

type Seen = { method: string; path: string; body: string; headers: Headers };

/** A server answering the given paths ("GET /v1/models", "POST /api/show"); 404 otherwise. */
function serve(routes: Record<string, (body: string) => Response>): { endpoint: Endpoint; seen: Seen[] } {
  const seen: Seen[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = await req.text();
      seen.push({ method: req.method, path: url.pathname + url.search, body, headers: req.headers });
      const route = routes[`${req.method} ${url.pathname}`];
      return route ? route(body) : new Response("not found", { status: 404 });
    },
  });
  closers.push(() => server.stop(true));
  return { endpoint: { name: "local", baseUrl: `http://127.0.0.1:${server.port}/v1`, apiKey: null }, seen };
}

const list = (data: unknown[]) => () => Response.json({ object: "list", data });

describe("discover: each model's window where its server keeps it", () => {
  test("llama.cpp: /props n_ctx is the window, n_ctx_train only what it was trained for", async () => {
    // /props as https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md#get-props shows it
    const { endpoint } = serve({
      "GET /v1/models": list([{ id: "qwen3-8b.gguf", object: "model", owned_by: "llamacpp", meta: { n_ctx_train: 40960 } }]),
      "GET /props": () => Response.json({ default_generation_settings: { n_ctx: 8192, params: { temperature: 0.8 } }, total_slots: 1, modalities: { vision: true, audio: false } }),
    });
    const found = await discover(endpoint);
    expect(found.ok && found.value).toEqual({
      dialect: "llamacpp",
      models: [{ id: "qwen3-8b.gguf", contextLength: 8192, contextFrom: "/props default_generation_settings.n_ctx", trainedContext: 40960, vision: true }],
    });
  });

  test("Ollama: /api/show's num_ctx is the window, capabilities say tools and vision; without num_ctx the default says so", async () => {
    // POST /api/show as https://github.com/ollama/ollama/blob/main/docs/api.md#show-model-information shows it
    const { endpoint, seen } = serve({
      "GET /v1/models": list([
        { id: "qwen2.5-coder:7b", object: "model", created: 1, owned_by: "library" },
        { id: "llava:7b", object: "model", created: 1, owned_by: "library" },
      ]),
      "POST /api/show": (body) => {
        const { model } = JSON.parse(body) as { model: string };
        if (model === "llava:7b") {
          return Response.json({ parameters: 'stop "</s>"', model_info: { "general.architecture": "llama", "llama.context_length": 4096 }, capabilities: ["completion", "vision"], details: { family: "llama" } });
        }
        return Response.json({
          parameters: 'stop "<|im_end|>"\nnum_ctx                        16384',
          model_info: { "general.architecture": "qwen2", "qwen2.context_length": 32768 },
          capabilities: ["completion", "tools", "insert"],
          details: { family: "qwen2", parameter_size: "7.6B" },
        });
      },
    });
    const found = await discover(endpoint);
    if (!found.ok) throw found.error;
    expect(found.value.dialect).toBe("ollama");
    expect(found.value.models).toEqual([
      { id: "qwen2.5-coder:7b", contextLength: 16384, contextFrom: "/api/show parameters num_ctx", trainedContext: 32768, vision: false, tools: true, family: "qwen2" },
      { id: "llava:7b", trainedContext: 4096, vision: true, tools: false, family: "llama" },
    ]);
    expect(seen.filter((s) => s.path === "/api/show").map((s) => JSON.parse(s.body))).toEqual(expect.arrayContaining([{ model: "qwen2.5-coder:7b" }, { model: "llava:7b" }]));
    const [, llava] = found.value.models;
    expect(modelWindow(llava, {}, "ollama", 32768)).toEqual({
      tokens: 32768,
      from: "default",
      where: expect.stringContaining("assumed 32k: Ollama runs it with the window it was started with (OLLAMA_CONTEXT_LENGTH"),
    });
    expect(modelWindow(llava, { body: { options: { num_ctx: 65536 } } }, "ollama", 32768)).toEqual({ tokens: 65536, from: "config", where: "options.num_ctx in the connection's body" });
    expect(modelWindow(found.value.models[0], { context: 100_000 }, "ollama", 32768).tokens).toBe(100_000);
  });

  test("LM Studio: /api/v0/models' loaded_context_length, else max_context_length (said to be a maximum)", async () => {
    // GET /api/v0/models as https://lmstudio.ai/docs/api/rest-api shows it
    const { endpoint } = serve({
      "GET /v1/models": list([
        { id: "qwen2-vl-7b-instruct", object: "model", owned_by: "organization_owner" },
        { id: "meta-llama-3.1-8b-instruct", object: "model", owned_by: "organization_owner" },
      ]),
      "GET /api/v0/models": list([
        { id: "qwen2-vl-7b-instruct", object: "model", type: "vlm", arch: "qwen2_vl", compatibility_type: "mlx", state: "not-loaded", max_context_length: 32768 },
        { id: "meta-llama-3.1-8b-instruct", object: "model", type: "llm", arch: "llama", compatibility_type: "gguf", state: "loaded", max_context_length: 131072, loaded_context_length: 4096 },
      ]),
    });
    const found = await discover(endpoint);
    if (!found.ok) throw found.error;
    expect(found.value.dialect).toBe("lmstudio");
    expect(found.value.models).toEqual([
      { id: "qwen2-vl-7b-instruct", contextLength: 32768, contextFrom: expect.stringContaining("max_context_length (not loaded"), vision: true, family: "qwen2_vl" },
      { id: "meta-llama-3.1-8b-instruct", contextLength: 4096, contextFrom: "/api/v0/models loaded_context_length", trainedContext: 131072, vision: false, family: "llama" },
    ]);
  });

  test("vLLM: max_model_len on the listing is the window, and no other endpoint is asked", async () => {
    const { endpoint, seen } = serve({
      "GET /v1/models": list([{ id: "Qwen/Qwen2.5-7B-Instruct", object: "model", owned_by: "vllm", root: "Qwen/Qwen2.5-7B-Instruct", max_model_len: 32768 }]),
    });
    const found = await discover(endpoint);
    expect(found.ok && found.value.models).toEqual([{ id: "Qwen/Qwen2.5-7B-Instruct", contextLength: 32768, contextFrom: "/v1/models max_model_len" }]);
    expect(seen.map((s) => s.path)).toEqual(["/v1/models"]);
  });

  test("a local server that looks generic is probed: Ollama's root says it is Ollama, and /api/show is read", async () => {
    const { endpoint } = serve({
      "GET /v1/models": list([{ id: "m", object: "model" }]),
      "GET /": () => new Response("Ollama is running"),
      "POST /api/show": () => Response.json({ parameters: "num_ctx 8192", model_info: {} }),
    });
    const found = await discover(endpoint);
    expect(found.ok && found.value).toEqual({ dialect: "ollama", models: [{ id: "m", contextLength: 8192, contextFrom: "/api/show parameters num_ctx" }] });
  });

  test("the connection's headers go with the listing and with every side request", async () => {
    const { endpoint, seen } = serve({
      "GET /v1/models": list([{ id: "m", owned_by: "llamacpp" }]),
      "GET /props": () => Response.json({ default_generation_settings: { n_ctx: 2048 } }),
    });
    const found = await discover({ ...endpoint, apiKey: "k-123", headers: { "x-team": "blue" } });
    expect(found.ok).toBe(true);
    expect(seen.map((s) => [s.path, s.headers.get("x-team"), s.headers.get("authorization")])).toEqual([
      ["/v1/models", "blue", "Bearer k-123"],
      ["/props", "blue", "Bearer k-123"],
    ]);
  });

  test("a side endpoint that fails or answers junk leaves the listing's own facts", async () => {
    const { endpoint } = serve({
      "GET /v1/models": list([{ id: "m", owned_by: "llamacpp", meta: { n_ctx_train: 40960 } }]),
      "GET /props": () => new Response("<html>oops</html>", { status: 200 }),
    });
    const found = await discover(endpoint);
    expect(found.ok && found.value.models).toEqual([{ id: "m", contextLength: 40960, contextFrom: "/v1/models meta.n_ctx_train" }]);
  });
});
