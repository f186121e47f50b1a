/**
 * What a server tells of its models: its /v1/models list, its family (dialects.ts), and each
 * model's window, vision, tools and family where the server's own endpoints say more than the
 * list (llama.cpp /props, Ollama /api/show, LM Studio /api/v0/models). The registry keeps the
 * result in the store and refreshes it in the background (registry.ts, store/listings.ts).
 */
import { z } from "zod";
import { lazily } from "../lazy.ts";
import { type Dialect, type DialectId, DIALECTS, dialectOf, isLoopback, serverRoot, type WindowSource } from "./dialects.ts";
import { type Endpoint, endpointHeaders } from "./endpoint.ts";
import type { Result } from "./errors.ts";
import type { DiscoveredModel } from "../store/listings.ts";
import { fetchListing, type ListOptions, type ModelInfo } from "./models.ts";
import type { ModelWindow } from "./window.ts";

/** A server's models and family; the store keeps it per connection. */
export type Discovery = { dialect: DialectId; models: DiscoveredModel[] };

/** Options of {@link discover}. */
export type DiscoverOptions = ListOptions & { login?: boolean; /** Per side request (default 2 s). */ sideTimeoutMs?: number };

/** Lists an endpoint's chat models, tells its family, and reads each model's window where its family keeps it. */
export async function discover(endpoint: Endpoint, options: DiscoverOptions = {}): Promise<Result<Discovery>> {
  const listed = await fetchListing(endpoint, options);
  if (!listed.ok) return listed;
  const models = listed.value.list.chat.map(fromInfo);
  let dialect = dialectOf({ baseUrl: endpoint.baseUrl, listing: listed.value.body, headers: listed.value.headers, login: options.login ?? false });
  const side: SideOptions = { endpoint, fetch: options.fetch ?? fetch, timeoutMs: options.sideTimeoutMs ?? 2000, signal: options.signal };
  if (dialect.id === "generic" && isLocal(endpoint.baseUrl)) dialect = (await probeFamily(side)) ?? dialect;
  const read = WINDOW_READERS[dialect.window.source];
  if (read) await read(side, models);
  return { ok: true, value: { dialect: dialect.id, models } };
}

function fromInfo(info: ModelInfo): DiscoveredModel {
  const model: DiscoveredModel = { id: info.id };
  if (info.provider) model.provider = info.provider;
  if (info.contextLength !== undefined) {
    model.contextLength = info.contextLength;
    model.contextFrom = `/v1/models ${info.contextFrom ?? "entry"}`;
  }
  if (info.vision !== undefined) model.vision = info.vision;
  if (info.tools !== undefined) model.tools = info.tools;
  return model;
}

function isLocal(baseUrl: string): boolean {
  try {
    return isLoopback(new URL(baseUrl).hostname);
  } catch {
    return false;
  }
}

type SideOptions = {
  endpoint: Endpoint;
  fetch: (input: string, init: RequestInit) => Promise<Response>;
  timeoutMs: number;
  signal: AbortSignal | undefined;
};

/** A JSON answer from the server's root (its native API), or null when it gives none. */
async function side(options: SideOptions, path: string, body?: unknown): Promise<{ text: string; json: unknown } | null> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const headers = { ...endpointHeaders(options.endpoint), ...(body === undefined ? {} : { "content-type": "application/json" }) };
  const init: RequestInit = body === undefined ? { headers, signal } : { method: "POST", headers, body: JSON.stringify(body), signal };
  try {
    const response = await options.fetch(`${serverRoot(options.endpoint.baseUrl)}${path}`, init);
    if (!response.ok) return null;
    const text = (await response.text()).slice(0, 4 * 1024 * 1024);
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // a plain-text answer (Ollama's root says "Ollama is running")
    }
    return { text, json };
  } catch {
    return null;
  }
}

/** A local server that looked generic, asked at each family's probe path (dialects.ts detect.probe). */
async function probeFamily(options: SideOptions): Promise<Dialect | null> {
  const probed = DIALECTS.filter((d) => d.detect.probe);
  const answers = await Promise.all(probed.map((d) => side(options, d.detect.probe?.path ?? "/")));
  const found = probed.find((d, i) => answers[i]?.text.includes(d.detect.probe?.holds ?? "\u0000"));
  return found ?? null;
}

type WindowReader = (options: SideOptions, models: DiscoveredModel[]) => Promise<void>;

const count = lazily(() => z.number().int().positive());

/** llama.cpp: GET /props, default_generation_settings.n_ctx (per model with ?model= when it serves several). */
const propsSchema = lazily(() =>
  z.looseObject({
    default_generation_settings: z.looseObject({ n_ctx: count().optional().catch(undefined) }).optional().catch(undefined),
    n_ctx: count().optional().catch(undefined),
    modalities: z.looseObject({ vision: z.boolean().optional().catch(undefined) }).optional().catch(undefined),
  }),
);

async function readProps(options: SideOptions, models: DiscoveredModel[]): Promise<void> {
  await Promise.all(
    models.map(async (model) => {
      const answer = await side(options, models.length > 1 ? `/props?model=${encodeURIComponent(model.id)}` : "/props");
      const props = propsSchema().safeParse(answer?.json);
      if (!props.success) return;
      const nCtx = props.data.default_generation_settings?.n_ctx ?? props.data.n_ctx;
      if (nCtx !== undefined) {
        if (model.contextFrom?.endsWith("n_ctx_train") && model.contextLength !== undefined) model.trainedContext = model.contextLength;
        model.contextLength = nCtx;
        model.contextFrom = "/props default_generation_settings.n_ctx";
      }
      const vision = props.data.modalities?.vision;
      if (vision !== undefined) model.vision = vision;
    }),
  );
}

/** Ollama: POST /api/show {model}: parameters "num_ctx N", model_info["<arch>.context_length"], capabilities, details.family. */
const showSchema = lazily(() =>
  z.looseObject({
    parameters: z.string().optional().catch(undefined),
    model_info: z.record(z.string(), z.unknown()).optional().catch(undefined),
    capabilities: z.array(z.string()).optional().catch(undefined),
    details: z.looseObject({ family: z.string().optional().catch(undefined) }).optional().catch(undefined),
  }),
);

async function readShow(options: SideOptions, models: DiscoveredModel[]): Promise<void> {
  await Promise.all(
    models.map(async (model) => {
      const answer = await side(options, "/api/show", { model: model.id });
      const show = showSchema().safeParse(answer?.json);
      if (!show.success) return;
      const info = show.data.model_info ?? {};
      const arch = typeof info["general.architecture"] === "string" ? info["general.architecture"] : undefined;
      const trained = count().safeParse(arch ? info[`${arch}.context_length`] : undefined);
      if (trained.success) model.trainedContext = trained.data;
      const numCtx = /^num_ctx\s+(\d+)\s*$/m.exec(show.data.parameters ?? "")?.[1];
      if (numCtx !== undefined && Number(numCtx) > 0) {
        model.contextLength = Number(numCtx);
        model.contextFrom = "/api/show parameters num_ctx";
      }
      const capabilities = show.data.capabilities;
      if (capabilities) {
        model.vision = capabilities.includes("vision");
        model.tools = capabilities.includes("tools");
      }
      const family = show.data.details?.family ?? arch;
      if (family) model.family = family;
    }),
  );
}

/** LM Studio: GET /api/v0/models, loaded_context_length (the loaded window) else max_context_length; type vlm; arch. */
const lmStudioSchema = lazily(() =>
  z.looseObject({
    data: z.array(
      z.looseObject({
        id: z.string(),
        type: z.string().optional().catch(undefined),
        arch: z.string().optional().catch(undefined),
        loaded_context_length: count().optional().catch(undefined),
        max_context_length: count().optional().catch(undefined),
      }),
    ),
  }),
);

async function readLmStudio(options: SideOptions, models: DiscoveredModel[]): Promise<void> {
  const parsed = lmStudioSchema().safeParse((await side(options, "/api/v0/models"))?.json);
  if (!parsed.success) return;
  const byId = new Map(parsed.data.data.map((e) => [e.id, e]));
  for (const model of models) {
    const entry = byId.get(model.id);
    if (!entry) continue;
    if (entry.loaded_context_length !== undefined) {
      model.contextLength = entry.loaded_context_length;
      model.contextFrom = "/api/v0/models loaded_context_length";
    } else if (entry.max_context_length !== undefined) {
      model.contextLength = entry.max_context_length;
      model.contextFrom = "/api/v0/models max_context_length (not loaded: LM Studio may load it with less)";
    }
    if (entry.max_context_length !== undefined && entry.max_context_length !== model.contextLength) model.trainedContext = entry.max_context_length;
    if (entry.type !== undefined) model.vision = entry.type === "vlm";
    if (entry.arch) model.family = entry.arch;
  }
}

const WINDOW_READERS: Partial<Record<WindowSource, WindowReader>> = {
  "llamacpp-props": readProps,
  "ollama-show": readShow,
  "lmstudio-api": readLmStudio,
};

export { type ModelWindow, modelWindow } from "./window.ts";

/** "32k", "128k", "4096": tokens as people write a window. */
export function tokensText(tokens: number): string {
  if (tokens % 1024 === 0) return `${tokens / 1024}k`;
  if (tokens % 1000 === 0) return `${tokens / 1000}k`;
  return String(tokens);
}

/** "8k from /props default_generation_settings.n_ctx", or the default's own sentence ("assumed 32k: …"). */
export function windowText(window: ModelWindow): string {
  return window.from === "default" ? window.where : `${tokensText(window.tokens)} from ${window.where}`;
}
