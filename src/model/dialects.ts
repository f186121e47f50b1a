/**
 * The dialect table: one row per family of OpenAI-compatible server, what lembas knows of each
 * and where that was read. Data and small functions only: the stream reader, the retries and the
 * context keeping read it (by {@link dialectById} on an endpoint's `dialect`), discovery fills it
 * in per connection ({@link dialectOf}).
 */

export type DialectId =
  | "ollama"
  | "llamacpp"
  | "vllm"
  | "lmstudio"
  | "openai"
  | "deepseek"
  | "openrouter"
  | "groq"
  | "mistral"
  | "gemini"
  | "anthropic"
  | "lembas"
  | "generic";

/**
 * Where a model's context window is read, beyond the /v1/models entry's own fields (models.ts
 * reads context_length, context_window, max_model_len, loaded/max_context_length, n_ctx, meta.*):
 * - `listing`: only the /v1/models entry.
 * - `llamacpp-props`: `GET {root}/props`, default_generation_settings.n_ctx (the window each slot has).
 * - `ollama-show`: `POST {root}/api/show {model}`, parameters "num_ctx N" (the window it runs with),
 *   model_info["<general.architecture>.context_length"] (what the model was trained for).
 * - `lmstudio-api`: `GET {root}/api/v0/models`, loaded_context_length, else max_context_length.
 */
export type WindowSource = "listing" | "llamacpp-props" | "ollama-show" | "lmstudio-api";

/** The request fields lembas may send that some servers refuse with a 400 (or 422). */
export type RequestField = "stream_options" | "reasoning_effort" | "parallel_tool_calls" | "tool_choice" | "max_tokens";

/** Where a reply's reasoning comes: a delta field, or `<think>` tags in the text (no parser on the server). */
export type ReasoningField = "reasoning_content" | "reasoning" | "reasoning_details" | "think-tags";

export type Dialect = {
  id: DialectId;
  /** As `lembas doctor` names it. */
  name: string;
  detect: {
    /** Base URL hosts (a suffix match: `api.groq.com`). */
    hosts: readonly string[];
    /** /v1/models entries' owned_by values only this family writes. */
    ownedBy: readonly string[];
    /** A response header (lower case) and what its value starts with. */
    header?: { name: string; startsWith: string };
    /** The loopback port it listens on by default (a weak hint, used last). */
    port?: number;
    /** A GET under the server's root that only this family answers, and what the answer holds. */
    probe?: { path: string; holds: string };
  };
  window: { source: WindowSource; note: string };
  /** Fields it answers with a 400/422 when sent (the stream helper leaves them out, or retries without). */
  refuses: readonly RequestField[];
  /** Whether it takes `tool_choice` (doctor's probe sends "auto" only then). */
  toolChoice: boolean;
  /**
   * Whether a model's tool calls may come as text in its answer, because the server may have no
   * parser for its format (none switched on, or none for that model): text-toolcalls.ts reads them
   * then. False for an API that always parses them: an example in the answer is never a call.
   */
  textToolCalls: boolean;
  /** Ids its tool calls must have when sent back (null: any string). */
  toolCallId: { pattern: RegExp; length: number; note: string } | null;
  reasoning: {
    fields: readonly ReasoningField[];
    /** Whether `reasoning_effort` does anything: yes, no (ignored or refused), or per model. */
    effort: "yes" | "no" | "per-model";
    note: string;
  };
  usage: {
    /** Whether it needs stream_options.include_usage to report usage in a stream. */
    needsStreamOptions: boolean;
    note: string;
  };
  /** Where the row's facts were read. */
  sources: readonly string[];
};

const OPENAI_USAGE = "a last chunk with empty choices when stream_options.include_usage is sent";

/** One row per family, most specific first: {@link dialectOf} takes the first that matches. */
export const DIALECTS: readonly Dialect[] = [
  {
    id: "lembas",
    name: "LLeMbas instance",
    detect: { hosts: [], ownedBy: [] },
    window: { source: "listing", note: "context_length on each /v1/models entry (kind: chat)" },
    refuses: [],
    toolChoice: true,
    textToolCalls: false,
    toolCallId: null,
    reasoning: { fields: ["reasoning_content"], effort: "per-model", note: "reasoning_content, as the provider behind it gives it" },
    usage: { needsStreamOptions: true, note: OPENAI_USAGE },
    sources: ["src/model/refs.ts (protocol 2 listings: kind, provider)", "/work/shared/DESIGN.md"],
  },
  {
    id: "openrouter",
    name: "OpenRouter",
    detect: { hosts: ["openrouter.ai"], ownedBy: [] },
    window: { source: "listing", note: "context_length and top_provider.context_length on /v1/models; supported_parameters names tools" },
    refuses: [],
    toolChoice: true,
    textToolCalls: false,
    toolCallId: null,
    reasoning: {
      fields: ["reasoning", "reasoning_details"],
      effort: "yes",
      note: "delta.reasoning, and delta.reasoning_details to be sent back with tool calls; effort is mapped onto reasoning.effort",
    },
    usage: { needsStreamOptions: false, note: "always in the last chunk; SSE comments (: OPENROUTER PROCESSING) between chunks; errors as an error chunk in a 200 stream" },
    sources: [
      "https://openrouter.ai/docs/api-reference/list-available-models",
      "https://openrouter.ai/docs/api-reference/streaming",
      "https://openrouter.ai/docs/use-cases/reasoning-tokens",
    ],
  },
  {
    id: "groq",
    name: "Groq",
    detect: { hosts: ["api.groq.com"], ownedBy: [] },
    window: { source: "listing", note: "context_window (and max_completion_tokens) on /v1/models" },
    // logprobs, logit_bias, top_logprobs, messages[].name and n != 1 are refused; lembas sends none of them.
    refuses: [],
    toolChoice: true,
    textToolCalls: false,
    toolCallId: null,
    reasoning: {
      fields: ["reasoning"],
      effort: "per-model",
      note: "delta.reasoning (reasoning_format parsed); reasoning_effort only on the models that list it (qwen3: none/default, gpt-oss: low/medium/high)",
    },
    usage: { needsStreamOptions: false, note: "x_groq.usage in the last chunk, and usage with stream_options" },
    sources: ["https://console.groq.com/docs/openai", "https://console.groq.com/docs/reasoning", "https://console.groq.com/docs/models"],
  },
  {
    id: "mistral",
    name: "Mistral",
    detect: { hosts: ["api.mistral.ai"], ownedBy: ["mistralai"] },
    window: { source: "listing", note: "max_context_length on /v1/models; capabilities.function_calling and capabilities.vision" },
    // Fields outside its schema are refused with 422 extra_forbidden "Extra inputs are not permitted"
    // (stream_options.include_usage, max_completion_tokens, frequency_penalty seen in the field).
    refuses: ["stream_options", "reasoning_effort"],
    toolChoice: true,
    textToolCalls: false,
    toolCallId: {
      pattern: /^[A-Za-z0-9]{9}$/,
      length: 9,
      note: "Tool call id was … but must be a-z, A-Z, 0-9, with a length of 9",
    },
    reasoning: { fields: [], effort: "no", note: "Magistral's thinking comes as content chunks of type thinking" },
    usage: { needsStreamOptions: false, note: "usage in the last chunk, unasked" },
    sources: [
      "https://docs.mistral.ai/api/#tag/chat",
      "https://github.com/langchain-ai/langchain/pull/24668 (the 9-character id error)",
      "https://github.com/openclaw/openclaw/issues/57672",
      "https://github.com/openai/openai-agents-python/issues/442 (stream_options: 422 extra_forbidden; usage comes unasked)",
      "https://github.com/TabbyML/tabby/pull/4082",
    ],
  },
  {
    id: "gemini",
    name: "Gemini (OpenAI-compatible endpoint)",
    detect: { hosts: ["generativelanguage.googleapis.com"], ownedBy: ["google"] },
    window: { source: "listing", note: "not on its OpenAI /models listing (the native API's inputTokenLimit is not read)" },
    refuses: ["parallel_tool_calls"],
    toolChoice: true,
    textToolCalls: false,
    toolCallId: null,
    reasoning: {
      fields: ["reasoning_content"],
      effort: "yes",
      note: "reasoning_effort maps onto thinking; thoughts only with extra_body google.thinking_config.include_thoughts; tool calls carry extra_content.google.thought_signature, to be sent back",
    },
    usage: { needsStreamOptions: true, note: OPENAI_USAGE },
    sources: ["https://ai.google.dev/gemini-api/docs/openai", "https://ai.google.dev/gemini-api/docs/thought-signatures"],
  },
  {
    id: "anthropic",
    name: "Anthropic (OpenAI SDK compatibility)",
    detect: { hosts: ["api.anthropic.com"], ownedBy: [] },
    window: { source: "listing", note: "its /v1/models (type: model, display_name) says no window" },
    refuses: [],
    toolChoice: true,
    textToolCalls: false,
    toolCallId: null,
    reasoning: {
      fields: [],
      effort: "no",
      note: "reasoning_effort is ignored; extended thinking is asked with a thinking field and its text is not returned",
    },
    usage: { needsStreamOptions: true, note: "stream_options is fully supported" },
    sources: ["https://docs.anthropic.com/en/api/openai-sdk", "https://docs.anthropic.com/en/api/models-list"],
  },
  {
    id: "deepseek",
    name: "DeepSeek",
    detect: { hosts: ["api.deepseek.com"], ownedBy: ["deepseek"] },
    window: { source: "listing", note: "not on /v1/models (id, object, owned_by only)" },
    refuses: [],
    toolChoice: true,
    textToolCalls: false,
    toolCallId: null,
    reasoning: {
      fields: ["reasoning_content"],
      effort: "no",
      note: "reasoning_content; in thinking mode with tool calls it must be sent back within the turn",
    },
    usage: { needsStreamOptions: true, note: `${OPENAI_USAGE}; ": keep-alive" comments while the request waits` },
    sources: [
      "https://api-docs.deepseek.com/api/list-models",
      "https://api-docs.deepseek.com/guides/reasoning_model",
      "https://api-docs.deepseek.com/guides/thinking_mode",
    ],
  },
  {
    id: "openai",
    name: "OpenAI",
    detect: { hosts: ["api.openai.com"], ownedBy: ["openai", "system", "openai-internal"] },
    window: { source: "listing", note: "not on /v1/models (id, object, created, owned_by only)" },
    // Its reasoning models refuse max_tokens (max_completion_tokens instead) and, on older ones, parallel_tool_calls.
    refuses: ["max_tokens"],
    toolChoice: true,
    textToolCalls: false,
    toolCallId: null,
    reasoning: { fields: [], effort: "per-model", note: "reasoning_effort on reasoning models only; chat completions return no reasoning text; refusal in place of content" },
    usage: { needsStreamOptions: true, note: OPENAI_USAGE },
    sources: ["https://platform.openai.com/docs/api-reference/chat/create", "https://platform.openai.com/docs/guides/reasoning"],
  },
  {
    id: "vllm",
    name: "vLLM",
    detect: { hosts: [], ownedBy: ["vllm"], port: 8000 },
    window: { source: "listing", note: "max_model_len on each /v1/models entry" },
    refuses: [],
    toolChoice: true,
    textToolCalls: true,
    toolCallId: null,
    reasoning: {
      fields: ["reasoning_content", "reasoning"],
      effort: "per-model",
      note: "with --reasoning-parser: reasoning_content (older) or reasoning (newer); without one <think> stays in the text",
    },
    usage: { needsStreamOptions: true, note: OPENAI_USAGE },
    sources: [
      "https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html",
      "https://docs.vllm.ai/en/latest/features/tool_calling.html (tools need --enable-auto-tool-choice and --tool-call-parser)",
      "https://docs.vllm.ai/en/latest/features/reasoning_outputs.html",
    ],
  },
  {
    id: "llamacpp",
    name: "llama.cpp server",
    detect: { hosts: [], ownedBy: ["llamacpp"], header: { name: "server", startsWith: "llama.cpp" }, port: 8080, probe: { path: "/props", holds: "default_generation_settings" } },
    window: { source: "llamacpp-props", note: "GET /props default_generation_settings.n_ctx; /v1/models meta.n_ctx_train is only what the model was trained for" },
    refuses: [],
    toolChoice: true,
    textToolCalls: true,
    toolCallId: null,
    reasoning: {
      fields: ["reasoning_content", "think-tags"],
      effort: "no",
      note: "reasoning_content with --reasoning-format deepseek (auto by default); <think> in the text with none; tools need --jinja",
    },
    usage: { needsStreamOptions: true, note: `${OPENAI_USAGE}, with timings` },
    sources: ["https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md", "https://mvysny.github.io/llama-server-endpoints/"],
  },
  {
    id: "lmstudio",
    name: "LM Studio",
    detect: { hosts: [], ownedBy: ["organization_owner"], port: 1234, probe: { path: "/api/v0/models", holds: "compatibility_type" } },
    window: { source: "lmstudio-api", note: "GET /api/v0/models loaded_context_length (the loaded window), else max_context_length" },
    refuses: [],
    toolChoice: true,
    textToolCalls: true,
    toolCallId: null,
    reasoning: { fields: ["reasoning_content", "think-tags"], effort: "per-model", note: "reasoning_content when its separate-reasoning setting is on, else <think> in the text" },
    usage: { needsStreamOptions: false, note: "usage in the last chunk" },
    sources: ["https://lmstudio.ai/docs/api/rest-api", "https://lmstudio.ai/docs/api/openai-api"],
  },
  {
    id: "ollama",
    name: "Ollama",
    detect: { hosts: ["ollama.com"], ownedBy: ["library", "ollama"], port: 11434, probe: { path: "/", holds: "Ollama is running" } },
    window: {
      source: "ollama-show",
      note: "POST /api/show parameters num_ctx, else the server's own default (OLLAMA_CONTEXT_LENGTH; 4k below 24 GiB of VRAM), which silently truncates a longer prompt",
    },
    refuses: [],
    toolChoice: false,
    textToolCalls: true,
    toolCallId: null,
    reasoning: { fields: ["reasoning", "think-tags"], effort: "per-model", note: "delta.reasoning for thinking models (capabilities: thinking); reasoning_effort maps onto think" },
    usage: { needsStreamOptions: true, note: OPENAI_USAGE },
    sources: [
      "https://github.com/ollama/ollama/blob/main/docs/openai.md",
      "https://github.com/ollama/ollama/blob/main/docs/api.md#show-model-information",
      "https://github.com/ollama/ollama/blob/main/docs/context-length.mdx",
    ],
  },
  {
    id: "generic",
    name: "an OpenAI-compatible server",
    detect: { hosts: [], ownedBy: [] },
    window: { source: "listing", note: "whatever /v1/models says, else the safe default" },
    refuses: [],
    toolChoice: true,
    textToolCalls: true,
    toolCallId: null,
    reasoning: { fields: ["reasoning_content", "reasoning", "think-tags"], effort: "per-model", note: "any of the usual fields" },
    usage: { needsStreamOptions: true, note: OPENAI_USAGE },
    sources: ["https://platform.openai.com/docs/api-reference/chat/streaming"],
  },
];

const BY_ID: ReadonlyMap<string, Dialect> = new Map(DIALECTS.map((d) => [d.id, d]));

/** The row of `id`; an id this lembas does not know (a newer store's) is the generic row. */
export function dialectById(id: string | undefined): Dialect {
  return (id === undefined ? undefined : BY_ID.get(id)) ?? generic();
}

function generic(): Dialect {
  const row = BY_ID.get("generic");
  if (!row) throw new Error("the dialect table has no generic row");
  return row;
}

/** What a server showed of itself: its base URL, its raw /v1/models body, the listing's response headers. */
export type Evidence = {
  baseUrl: string;
  /** The parsed /v1/models body (unknown shape). */
  listing?: unknown;
  headers?: Headers | null;
  /** A LLeMbas login's endpoint. */
  login?: boolean;
};

/**
 * The family of a server, from what it showed (first match): a login; the base URL's host; the
 * listing's shape and owned_by; a response header; the default port of a local server. Generic
 * when nothing tells. A probe ({@link Dialect.detect}.probe) is discovery's, for local generic ones.
 */
export function dialectOf(evidence: Evidence): Dialect {
  if (evidence.login) return dialectById("lembas");
  const url = safeUrl(evidence.baseUrl);
  const host = url?.hostname.toLowerCase() ?? "";
  const byHost = DIALECTS.find((d) => d.detect.hosts.some((h) => host === h || host.endsWith(`.${h}`)));
  if (byHost) return byHost;
  const byShape = fromListing(entriesOf(evidence.listing));
  if (byShape) return byShape;
  const header = evidence.headers;
  if (header) {
    const byHeader = DIALECTS.find((d) => d.detect.header && header.get(d.detect.header.name)?.toLowerCase().startsWith(d.detect.header.startsWith));
    if (byHeader) return byHeader;
  }
  const port = Number(url?.port || 0);
  if (port > 0 && isLoopback(host)) return DIALECTS.find((d) => d.detect.port === port) ?? generic();
  return generic();
}

/** Whether a host is this machine (a local server, which discovery may probe). */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "127.0.0.1" || host === "::1" || host === "[::1]" || host.startsWith("127.");
}

type RawEntry = Record<string, unknown>;

function entriesOf(listing: unknown): RawEntry[] {
  const data = Array.isArray(listing) ? listing : isRecord(listing) && Array.isArray(listing.data) ? listing.data : [];
  return data.filter(isRecord);
}

/** A family by the listing's shape: fields only one family writes, then owned_by. */
function fromListing(entries: RawEntry[]): Dialect | undefined {
  if (entries.length === 0) return undefined;
  const has = (field: string) => entries.some((e) => e[field] !== undefined);
  if (has("kind")) return dialectById("lembas");
  if (has("supported_parameters") || has("top_provider")) return dialectById("openrouter");
  if (has("display_name") && entries.every((e) => e.type === "model")) return dialectById("anthropic");
  if (has("max_model_len")) return dialectById("vllm");
  if (has("context_window") && has("active")) return dialectById("groq");
  if (has("compatibility_type")) return dialectById("lmstudio");
  if (entries.every((e) => typeof e.id === "string" && e.id.startsWith("models/"))) return dialectById("gemini");
  const owners = new Set(entries.map((e) => e.owned_by).filter((o): o is string => typeof o === "string"));
  return DIALECTS.find((d) => d.detect.ownedBy.some((o) => owners.has(o)));
}

function isRecord(value: unknown): value is RawEntry {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function safeUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** The server's root (the base URL without its /v1, or Gemini's /v1beta/openai), where native endpoints live. */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/(v1|v1beta\/openai|openai\/v1|api\/v1)$/, "");
}
