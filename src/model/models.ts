import { z } from "zod";
import { lazily } from "../lazy.ts";
import { hasControls } from "../controls.ts";
import { type Endpoint, endpointHeaders } from "./endpoint.ts";
import { type Result, displayUrl, httpError, modelError, networkError, readBounded } from "./errors.ts";

/** A model a /v1/models list offers. */
export type ModelInfo = {
  id: string;
  /** The entry's provider field (a protocol 2 instance's; see refs.ts). */
  provider?: string;
  /** Where the entry says (see CONTEXT_FIELDS). */
  contextLength?: number;
  /** The entry's field contextLength was read from (e.g. "max_model_len"), for `lembas doctor`. */
  contextFrom?: string;
  /** Where the entry says whether the model takes images. */
  vision?: boolean;
  /** Where the entry says whether the model takes tools (Mistral's capabilities, OpenRouter's supported_parameters). */
  tools?: boolean;
};

/** A server's models: the chat models lembas talks to, and the embedding models the library uses. */
export type ModelList = { chat: ModelInfo[]; embedding: ModelInfo[] };

/**
 * A /v1/models answer's schemas, made the first time a server lists its models in this process: a
 * one-shot reads the listing kept in the store (model/registry.ts), and lists afresh only when that
 * is missing or old.
 */
const listingSchemas = lazily(() => {
  const count = z.number().int().positive().optional().catch(undefined);
  const optionalString = z.string().optional().catch(undefined);
  /**
   * A name lembas shows at a terminal (`lembas models`, the /model picker) and builds refs of: one
   * carrying control characters (an escape sequence, a bidi override) is no honest model's, and the
   * entry is skipped as unreadable.
   */
  const shownName = z.string().min(1).refine((s) => !hasControls(s));

  /**
   * One /v1/models entry, as far as lembas reads it. What servers put where:
   * - LLeMbas: kind ("chat", "embedding", "stt", "tts", "image"), provider.
   * - OpenRouter: context_length, top_provider.context_length, architecture.input_modalities.
   * - Groq and others: context_window.
   * - vLLM: max_model_len.
   * - LM Studio (/api/v0 shape): type ("llm", "vlm", "embeddings"), loaded_context_length, max_context_length.
   * - llama.cpp: meta.n_ctx (some builds), meta.n_ctx_train (what the model was trained for), meta.modalities.vision.
   * - Mistral: max_context_length, capabilities.function_calling, capabilities.vision.
   * - OpenRouter: supported_parameters (naming "tools" when the model takes them).
   * - Ollama: none of these (id, object, created, owned_by).
   */
  const entry = z.object({
    id: shownName,
    kind: optionalString,
    type: optionalString,
    provider: shownName.optional().catch(undefined),
    context_length: count,
    context_window: count,
    max_model_len: count,
    loaded_context_length: count,
    max_context_length: count,
    n_ctx: count,
    meta: z
      .object({ n_ctx: count, n_ctx_train: count, modalities: z.object({ vision: z.boolean().optional() }).optional() })
      .optional()
      .catch(undefined),
    top_provider: z.object({ context_length: count }).optional().catch(undefined),
    architecture: z.object({ input_modalities: z.array(z.string()).optional() }).optional().catch(undefined),
    vision: z.boolean().optional().catch(undefined),
    capabilities: z.object({ function_calling: z.boolean().optional(), vision: z.boolean().optional() }).optional().catch(undefined),
    supported_parameters: z.array(z.string()).optional().catch(undefined),
  });
  const listBody = z.union([z.object({ data: z.array(z.unknown()) }).transform((b) => b.data), z.array(z.unknown())]);
  return { entry, listBody };
});
type Entry = z.infer<ReturnType<typeof listingSchemas>["entry"]>;

/** Options of {@link listModels}. */
export type ListOptions = {
  signal?: AbortSignal;
  /** Gives up after this long (default 10 s). */
  timeoutMs?: number;
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
};

/** Lists an endpoint's models from `GET {baseUrl}/models`; entries it cannot read are skipped. */
export async function listModels(endpoint: Endpoint, options: ListOptions = {}): Promise<Result<ModelList>> {
  const listed = await fetchListing(endpoint, options);
  return listed.ok ? { ok: true, value: listed.value.list } : listed;
}

/** A /v1/models answer: the sorted list, the body as sent (for {@link dialectOf}) and the response's headers. */
export type Listing = { list: ModelList; body: unknown; headers: Headers };

/** {@link listModels}, keeping what discovery reads to tell the server's family. */
export async function fetchListing(endpoint: Endpoint, options: ListOptions = {}): Promise<Result<Listing>> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const fetchFn = options.fetch ?? fetch;
  const at = `the model server at ${displayUrl(endpoint.baseUrl)}`;
  let response: Response;
  try {
    response = await fetchFn(`${endpoint.baseUrl}/models`, { headers: endpointHeaders(endpoint), signal });
  } catch (cause) {
    if (timeout.aborted && !options.signal?.aborted) {
      return { ok: false, error: modelError(endpoint, "unreachable", `${at} did not list its models within ${options.timeoutMs ?? 10_000} ms`) };
    }
    return { ok: false, error: networkError(endpoint, cause, options.signal) };
  }
  const text = await readBounded(response, 16 * 1024 * 1024);
  if (!response.ok) return { ok: false, error: httpError(endpoint, response.status, text) };
  const body = parseJson(text);
  const list = body === undefined ? null : sortList(body);
  if (list === null) return { ok: false, error: modelError(endpoint, "malformed", `${at} answered /models with something that is not a model list`) };
  return { ok: true, value: { list, body, headers: response.headers } };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Sorts a /v1/models body into chat and embedding models; null when it is not a list. */
export function parseList(text: string): ModelList | null {
  const json = parseJson(text);
  return json === undefined ? null : sortList(json);
}

function sortList(json: unknown): ModelList | null {
  const { entry: entrySchema, listBody } = listingSchemas();
  const body = listBody.safeParse(json);
  if (!body.success) return null;
  const list: ModelList = { chat: [], embedding: [] };
  for (const raw of body.data) {
    const entry = entrySchema.safeParse(raw);
    if (!entry.success) continue;
    const kind = kindOf(entry.data);
    if (kind === "chat") list.chat.push(info(entry.data));
    if (kind === "embedding") list.embedding.push(info(entry.data));
  }
  return list;
}

/**
 * The spec's kinds, where the entry gives one. A server that gives none (a local one) lists
 * embedding models beside chat models: LM Studio's type, else an id naming "embed", tells them apart.
 */
function kindOf(entry: Entry): "chat" | "embedding" | "other" {
  if (entry.kind === "chat" || entry.kind === "embedding") return entry.kind;
  if (entry.kind !== undefined) return "other";
  if (entry.type === "embeddings" || entry.type === "embedding") return "embedding";
  if (entry.type === undefined && /embed/i.test(entry.id)) return "embedding";
  return "chat";
}

/** The entry's window fields, most telling first: what the server runs with over what the model could hold. */
const CONTEXT_FIELDS: readonly [string, (e: Entry) => number | undefined][] = [
  ["context_length", (e) => e.context_length],
  ["context_window", (e) => e.context_window],
  ["max_model_len", (e) => e.max_model_len],
  ["loaded_context_length", (e) => e.loaded_context_length],
  ["max_context_length", (e) => e.max_context_length],
  ["n_ctx", (e) => e.n_ctx],
  ["meta.n_ctx", (e) => e.meta?.n_ctx],
  ["top_provider.context_length", (e) => e.top_provider?.context_length],
  ["meta.n_ctx_train", (e) => e.meta?.n_ctx_train],
];

function info(entry: Entry): ModelInfo {
  const model: ModelInfo = { id: entry.id };
  if (entry.provider) model.provider = entry.provider;
  for (const [field, read] of CONTEXT_FIELDS) {
    const value = read(entry);
    if (value === undefined) continue;
    model.contextLength = value;
    model.contextFrom = field;
    break;
  }
  const vision = visionOf(entry);
  if (vision !== undefined) model.vision = vision;
  const tools = entry.capabilities?.function_calling ?? (entry.supported_parameters ? entry.supported_parameters.includes("tools") : undefined);
  if (tools !== undefined) model.tools = tools;
  return model;
}

function visionOf(entry: Entry): boolean | undefined {
  if (entry.vision !== undefined) return entry.vision;
  if (entry.capabilities?.vision !== undefined) return entry.capabilities.vision;
  if (entry.architecture?.input_modalities) return entry.architecture.input_modalities.includes("image");
  if (entry.meta?.modalities?.vision !== undefined) return entry.meta.modalities.vision;
  if (entry.type === "vlm") return true;
  return undefined;
}

/** Loopback ports of the usual local servers: Ollama, LM Studio, llama.cpp, vLLM. */
export const LOCAL_PORTS: readonly number[] = [11434, 1234, 8080, 8000];

/** A local server found by {@link probeLocal}. */
export type LocalServer = { port: number; baseUrl: string; models: ModelList };

/**
 * The first of `ports` (in the order given) whose loopback server answers /v1/models with a
 * model list, or null. All ports are asked at once, each for at most `timeoutMs`.
 */
export async function probeLocal(ports: readonly number[] = LOCAL_PORTS, timeoutMs = 500): Promise<LocalServer | null> {
  const stop = new AbortController();
  const probes = ports.map((port) => probe(port, timeoutMs, stop.signal));
  try {
    for (const found of probes) {
      const server = await found;
      if (server) return server;
    }
    return null;
  } finally {
    stop.abort();
  }
}

async function probe(port: number, timeoutMs: number, signal: AbortSignal): Promise<LocalServer | null> {
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const endpoint: Endpoint = { name: "local", baseUrl, apiKey: null };
  const listed = await listModels(endpoint, { signal, timeoutMs });
  return listed.ok ? { port, baseUrl, models: listed.value } : null;
}
