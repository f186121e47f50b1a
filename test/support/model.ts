/**
 * A scripted OpenAI-compatible server for tests: `GET /v1/models` and
 * `POST /v1/chat/completions` (streaming SSE or one JSON answer), answering from a queue of
 * {@link Reply}s, recording every chat request, and failing on demand (HTTP errors, a cut
 * connection, a malformed SSE line, a hang). `POST /v1/embeddings` answers deterministic vectors
 * (a hashed bag of words, see embeddings.ts), or fails as {@link ScriptedModel.setEmbeddings} says.
 *
 * ```ts
 * const model = await startModel({ replies: [{ text: "hello" }] });
 * // point the code under test at model.url ... then:
 * const [req] = await model.waitForRequests(1);
 * await model.close();
 * ```
 */
import { z } from "zod";
import { DEFAULT_WAIT_MS, Recorder, sleep } from "./recorder.ts";
import { bagOfWords, EMBEDDING_DIMENSION } from "./embeddings.ts";
import type { ModelRoute } from "./fixture-route.ts";

/** The JSON body of a chat completion request, as the client sent it (unknown fields kept). */
export type ChatRequest = z.infer<typeof ChatRequestSchema>;

/** One message of {@link ChatRequest.messages} (unknown fields kept). */
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

const ChatMessageSchema = z.looseObject({
  role: z.string(),
  content: z.unknown().optional(),
  tool_calls: z.array(z.unknown()).nullish(),
  tool_call_id: z.string().optional(),
});

const ChatRequestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(ChatMessageSchema).optional(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  tools: z.array(z.unknown()).nullish(),
  reasoning_effort: z.string().nullish(),
});

/** A tool call the scripted model makes. */
export interface ToolCallReply {
  /** Defaults to `call_<n>`, `n` counting up per server. */
  id?: string;
  name: string;
  /** An object is sent as its JSON text. */
  arguments: string | object;
  /** Split the arguments string over this many deltas (default 1). */
  chunks?: number;
}

/** An HTTP error answer (`retryAfter` in seconds becomes `Retry-After`). */
export interface HttpFailure {
  status: number;
  /** Default: an OpenAI-shaped `{ error: { message, type, code } }`. */
  body?: string;
  retryAfter?: number;
}

/**
 * How a reply fails: an HTTP error; `"cut"` streams some chunks and then destroys the
 * connection without `[DONE]`; `"malformed"` puts a `data:` line of invalid JSON mid-stream
 * (then carries on to `[DONE]`); `"hang"` sends the headers and then nothing until the client
 * aborts; `"error"` is a 500 after the stream started, as vLLM and OpenRouter report one: an
 * `{ error: { message, code: 500 } }` chunk mid-stream, then the stream ends. Without `stream: true` the same modes apply to the one JSON body.
 */
export type FailMode = HttpFailure | "cut" | "malformed" | "hang" | "error";

/** One scripted answer. */
export interface Reply {
  /** Only a request whose body passes this takes the reply (none: any request). */
  match?: (body: ChatRequest) => boolean;
  /** The answer's text; a string is split at word starts, a `string[]` is the exact chunks. */
  text?: string | string[];
  /** Reasoning, streamed before the text, split like `text`. */
  reasoning?: string | string[];
  /** The delta field carrying reasoning (default `reasoning_content`). */
  reasoningField?: "reasoning_content" | "reasoning";
  toolCalls?: ToolCallReply[];
  /** Default `"tool_calls"` when there are tool calls, else `"stop"`. */
  finishReason?: string;
  /**
   * Sent in a last chunk with empty `choices` when the request asked
   * `stream_options.include_usage`, and in every non-streamed answer. Default: a rough estimate;
   * null: never, as servers that do not report usage.
   */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  /** Pause between SSE events (0, the default, sends them in large batches). */
  chunkDelayMs?: number;
  /**
   * A turn that runs until the test says: streamed up to its first text chunk (with no text, its
   * first tool call's name), then the rest once
   * this settles (a reply that is not streamed: sent once it settles). The client going away ends it.
   */
  hold?: Promise<unknown>;
  /** With `hold`: the stream stops before anything but its role frame (a client awaiting the model's first words). */
  holdBeforeText?: boolean;
  fail?: FailMode;
  /**
   * With `fail`: fail this many times (the reply stays queued), then serve the reply normally.
   * Without it a failing reply fails once and is used up (a failing `fallback`: every time).
   */
  failTimes?: number;
}

/** An entry of `GET /v1/models`; extra fields are passed through. */
export interface ModelEntry {
  id: string;
  kind?: string;
  provider?: string;
  context_length?: number;
  [field: string]: unknown;
}

/** A chat completion request the scripted model received. */
export interface RecordedRequest {
  /** The parsed body (`{}` when it was not a valid chat request: see `invalid`). */
  body: ChatRequest;
  headers: Headers;
  /** The `Authorization` header as sent, or null. */
  authorization: string | null;
  /** `Date.now()` on arrival. */
  time: number;
  /** When the request's headers arrived, before its body was read: `performance.timeOrigin + performance.now()` (ms, fractional). */
  arrived: number;
  /** Why the body was refused with 400, when it was. */
  invalid?: string;
}

/**
 * How `POST /v1/embeddings` answers: `fail` the next `times` requests (default every one) with 429
 * and a Retry-After (seconds) or 500; `dimension`: vectors of this many dimensions (default 64).
 */
export interface EmbeddingMode {
  fail?: { status: 429; retryAfter?: number } | { status: 500 };
  times?: number;
  /** Answer this many requests normally before the failures begin. */
  after?: number;
  dimension?: number;
  /** Each request is answered only once this settles (a slow server: tests change files meanwhile). */
  hold?: Promise<unknown>;
  /** Which requests `hold` holds (default every one): e.g. the batches of an index, not a query's one text. */
  holdWhen?: (input: readonly string[]) => boolean;
}

/** An embeddings request the scripted model received. */
export interface EmbeddingRequest {
  model: string;
  input: string[];
  authorization: string | null;
}

/** A running scripted model. */
export interface ScriptedModel {
  /** Base URL, `http://127.0.0.1:<port>/v1`. */
  readonly url: string;
  readonly port: number;
  /** Every chat completion request, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Queues replies after those already queued. */
  push(...replies: Reply[]): void;
  /** Replaces the `GET /v1/models` list. */
  setModels(models: ModelEntry[]): void;
  /** When each `GET /v1/models` arrived, as {@link RecordedRequest.arrived}. */
  readonly modelListArrivals: number[];
  /** Every embeddings request, in arrival order. */
  readonly embeddingRequests: EmbeddingRequest[];
  /** How embeddings are answered from now on (see {@link EmbeddingMode}); `{}` is normally. */
  setEmbeddings(mode: EmbeddingMode): void;
  /** Number of replies still queued (a test can check that all were used). */
  pending(): number;
  /** Resolves with all requests once at least `n` chat requests arrived (default 5 s). */
  waitForRequests(n: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /** Answers one request as this server would, so another server can mount it. */
  handle(req: Request): Promise<Response>;
  /** Stops the server, dropping open streams. */
  close(): Promise<void>;
}

/**
 * Starts a scripted model on 127.0.0.1 and a free port.
 * @param opts.replies the initial queue
 * @param opts.models the `/v1/models` list (default: one model, `test-model`, without `kind`)
 * @param opts.fallback the answer when nothing queued matches (default: text "ok")
 * @param opts.routes other APIs' routes (messages-server.ts, responses-server.ts), asked first
 */
export async function startModel(
  opts: { replies?: Reply[]; models?: ModelEntry[]; fallback?: Reply; routes?: ModelRoute[] } = {},
): Promise<ScriptedModel> {
  const model = new Scripted(opts.replies ?? [], opts.models ?? [{ id: "test-model" }], opts.fallback ?? { text: "ok" }, opts.routes ?? []);
  model.listen();
  return model;
}

/** Text of a message's content: a string, or the text parts of a content array. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const part of content) {
    const parsed = z.object({ type: z.literal("text"), text: z.string() }).safeParse(part);
    if (parsed.success) parts.push(parsed.data.text);
  }
  return parts.join("\n");
}

/**
 * A user message's text as the person wrote it: without the note lembas adds after it when the
 * session's mode changed (src/engine/mode-notes.ts), which tests of the note check on their own.
 */
export function personText(content: unknown): string {
  return contentText(content).replace(/\n\n\[lembas\] The session is in \w+ mode: [^\n]*$/, "");
}

/** Text of the last user message of a request (handy in `match`). */
export function lastUserText(body: ChatRequest): string {
  const users = (body.messages ?? []).filter((m) => m.role === "user");
  return contentText(users.at(-1)?.content);
}

// ---------------------------------------------------------------------------------------------

interface Queued {
  reply: Reply;
  /** Failures still to give before the reply is served normally. */
  failuresLeft: number;
}

/** What one request gets: the reply, and whether this time it fails. */
interface Pick {
  reply: Reply;
  failing: boolean;
}

class Scripted implements ScriptedModel {
  private readonly queue: Queued[] = [];
  private readonly fallback: Queued;
  private models: ModelEntry[];
  private readonly recorder = new Recorder<RecordedRequest>();
  private readonly ids = { completion: 0, call: 0 };
  private server: Bun.Server<undefined> | null = null;
  private listenPort = 0;
  readonly modelListArrivals: number[] = [];
  readonly embeddingRequests: EmbeddingRequest[] = [];
  private embedding: EmbeddingMode = {};
  private embedFailures = 0;
  private embedGood = 0;

  constructor(
    replies: Reply[],
    models: ModelEntry[],
    fallback: Reply,
    private readonly routes: ModelRoute[],
  ) {
    this.push(...replies);
    this.models = models;
    this.fallback = { reply: fallback, failuresLeft: fallback.fail ? (fallback.failTimes ?? Infinity) : 0 };
  }

  get requests(): RecordedRequest[] {
    return this.recorder.items;
  }

  get port(): number {
    return this.listenPort;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  listen(): void {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      fetch: (req) => this.handle(req),
    });
    this.listenPort = this.server.port ?? 0;
  }

  push(...replies: Reply[]): void {
    for (const reply of replies) this.queue.push({ reply, failuresLeft: reply.fail ? (reply.failTimes ?? 1) : 0 });
  }

  setModels(models: ModelEntry[]): void {
    this.models = models;
  }

  setEmbeddings(mode: EmbeddingMode): void {
    this.embedding = mode;
    this.embedFailures = mode.fail ? (mode.times ?? Infinity) : 0;
    this.embedGood = mode.after ?? 0;
  }

  pending(): number {
    return this.queue.length;
  }

  waitForRequests(n: number, timeoutMs = DEFAULT_WAIT_MS): Promise<RecordedRequest[]> {
    return this.recorder.waitForCount(n, { timeoutMs, what: `${n} chat completion request(s)` });
  }

  async handle(req: Request): Promise<Response> {
    const arrived = performance.timeOrigin + performance.now();
    const path = new URL(req.url).pathname;
    for (const route of this.routes) if (route.handles(req.method, path)) return route.handle(req);
    if (req.method === "GET" && path.endsWith("/models")) {
      this.modelListArrivals.push(arrived);
      return Response.json(this.modelList());
    }
    if (req.method === "POST" && path.endsWith("/chat/completions")) return this.chat(req, arrived);
    if (req.method === "POST" && path.endsWith("/embeddings")) return this.embeddings(req);
    return openAiError(404, `no route for ${req.method} ${path}`, "not_found");
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.recorder.failAll(new Error("scripted model closed"));
    await server?.stop(true);
  }

  private modelList(): { object: "list"; data: Record<string, unknown>[] } {
    const data = this.models.map((entry) => ({
      object: "model",
      created: 1_700_000_000,
      owned_by: entry.provider ?? "scripted",
      ...entry,
    }));
    return { object: "list", data };
  }

  private async chat(req: Request, arrived: number): Promise<Response> {
    const { body, invalid } = parseChatRequest(await req.text().catch(() => ""));
    const authorization = req.headers.get("authorization");
    const recorded: RecordedRequest = { body, headers: req.headers, authorization, time: Date.now(), arrived };
    if (invalid !== undefined) recorded.invalid = invalid;
    this.recorder.push(recorded);
    if (invalid !== undefined) return openAiError(400, invalid, "invalid_request_error");
    const { reply, failing } = this.pick(body);
    const ctx = this.context(body);
    const fail = failing ? reply.fail : undefined;
    if (fail !== undefined && typeof fail === "object") return httpFailure(fail);
    if (body.stream === true) return sseResponse(streamFrames(reply, ctx), { delayMs: reply.chunkDelayMs ?? 0, fail, hold: heldAfterFirstText(reply) });
    if ((reply.chunkDelayMs ?? 0) > 0) await sleep(reply.chunkDelayMs ?? 0, req.signal);
    if (reply.hold) await settledOrGone(reply.hold, req.signal);
    return jsonResponse(completion(reply, ctx), fail);
  }

  private async embeddings(req: Request): Promise<Response> {
    const parsed = EmbeddingRequestSchema.safeParse(await req.json().catch(() => null));
    if (!parsed.success) return openAiError(400, `not an embeddings request: ${z.prettifyError(parsed.error)}`, "invalid_request_error");
    const input = typeof parsed.data.input === "string" ? [parsed.data.input] : parsed.data.input;
    this.embeddingRequests.push({ model: parsed.data.model, input, authorization: req.headers.get("authorization") });
    if (this.embedding.holdWhen?.(input) !== false) await this.embedding.hold;
    const fail = this.embedding.fail;
    if (fail && this.embedGood > 0) this.embedGood -= 1;
    else if (fail && this.embedFailures > 0) {
      this.embedFailures -= 1;
      if (fail.status === 429) return httpFailure({ status: 429, ...(fail.retryAfter !== undefined ? { retryAfter: fail.retryAfter } : {}) });
      return httpFailure({ status: 500 });
    }
    const dimension = this.embedding.dimension ?? EMBEDDING_DIMENSION;
    const data = input.map((text, index) => ({ object: "embedding", index, embedding: bagOfWords(text, dimension) }));
    return Response.json({ object: "list", data, model: parsed.data.model, usage: { prompt_tokens: 0, total_tokens: 0 } });
  }

  /** Takes the first queued reply that matches (or the fallback), counting failures. */
  private pick(body: ChatRequest): Pick {
    const index = this.queue.findIndex((q) => !q.reply.match || q.reply.match(body));
    const entry = index >= 0 ? this.queue[index] : undefined;
    if (!entry) return this.use(this.fallback, () => {});
    return this.use(entry, () => this.queue.splice(index, 1));
  }

  private use(entry: Queued, remove: () => void): Pick {
    if (entry.failuresLeft > 0) {
      entry.failuresLeft -= 1;
      if (entry.failuresLeft === 0 && entry.reply.failTimes === undefined) remove();
      return { reply: entry.reply, failing: true };
    }
    remove();
    return { reply: entry.reply, failing: false };
  }

  private context(body: ChatRequest): ReplyContext {
    this.ids.completion += 1;
    return {
      id: `chatcmpl-scripted-${this.ids.completion}`,
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? "test-model",
      includeUsage: body.stream_options?.include_usage === true,
      promptChars: JSON.stringify(body.messages ?? []).length,
      nextCallId: () => `call_${++this.ids.call}`,
    };
  }
}

const EmbeddingRequestSchema = z.object({ model: z.string(), input: z.union([z.string(), z.array(z.string())]) });

function parseChatRequest(text: string): { body: ChatRequest; invalid?: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { body: {}, invalid: "the body is not JSON" };
  }
  const parsed = ChatRequestSchema.safeParse(json);
  if (parsed.success) return { body: parsed.data };
  return { body: {}, invalid: `not a chat completion request: ${z.prettifyError(parsed.error)}` };
}

// --- answers ---------------------------------------------------------------------------------

interface ReplyContext {
  id: string;
  created: number;
  model: string;
  includeUsage: boolean;
  promptChars: number;
  nextCallId: () => string;
}

interface ResolvedToolCall {
  id: string;
  name: string;
  arguments: string;
  chunks: number;
}

function openAiError(status: number, message: string, type: string): Response {
  return Response.json({ error: { message, type, code: status } }, { status });
}

function httpFailure(fail: HttpFailure): Response {
  const headers = new Headers();
  if (fail.retryAfter !== undefined) headers.set("retry-after", String(fail.retryAfter));
  if (fail.body === undefined) {
    headers.set("content-type", "application/json");
    const body = { error: { message: `scripted failure (${fail.status})`, type: "server_error", code: fail.status } };
    return new Response(JSON.stringify(body), { status: fail.status, headers });
  }
  headers.set("content-type", looksLikeJson(fail.body) ? "application/json" : "text/plain");
  return new Response(fail.body, { status: fail.status, headers });
}

function looksLikeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Splits text at word starts ("Hello big world" → "Hello", " big", " world"). */
function splitText(text: string | string[] | undefined): string[] {
  if (text === undefined) return [];
  if (Array.isArray(text)) return text;
  return text.match(/\s*\S+|\s+/g) ?? [];
}

/** Splits `text` into `n` pieces of near-equal length, never inside a code point. */
function splitEven(text: string, n: number): string[] {
  const chars = Array.from(text);
  const count = Math.max(1, Math.min(Math.floor(n), chars.length));
  const size = Math.ceil(chars.length / count);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(""));
  return pieces.length > 0 ? pieces : [""];
}

function resolveToolCalls(reply: Reply, ctx: ReplyContext): ResolvedToolCall[] {
  return (reply.toolCalls ?? []).map((call) => ({
    id: call.id ?? ctx.nextCallId(),
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    chunks: call.chunks ?? 1,
  }));
}

function finishReason(reply: Reply): string {
  return reply.finishReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? "tool_calls" : "stop");
}

function usageOf(reply: Reply, ctx: ReplyContext, calls: ResolvedToolCall[]): Record<string, number> {
  const given = reply.usage;
  const out = [...splitText(reply.text), ...splitText(reply.reasoning), ...calls.map((c) => c.arguments)];
  const outChars = out.join("").length;
  const prompt = given?.prompt_tokens ?? Math.ceil(ctx.promptChars / 4);
  const completion = given?.completion_tokens ?? Math.ceil(outChars / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The non-streamed `chat.completion` object. */
function completion(reply: Reply, ctx: ReplyContext): Record<string, unknown> {
  const calls = resolveToolCalls(reply, ctx);
  const content = reply.text === undefined ? null : splitText(reply.text).join("");
  const message: Record<string, unknown> = { role: "assistant", content };
  if (reply.reasoning !== undefined) {
    message[reply.reasoningField ?? "reasoning_content"] = splitText(reply.reasoning).join("");
  }
  if (calls.length > 0) {
    message.tool_calls = calls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  message.refusal = null;
  return {
    id: ctx.id,
    object: "chat.completion",
    created: ctx.created,
    model: ctx.model,
    system_fingerprint: "fp_scripted",
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(reply) }],
    usage: usageOf(reply, ctx, calls),
  };
}

/** The fields every `chat.completion.chunk` of one answer shares. */
function chunkHead(ctx: ReplyContext): Record<string, unknown> {
  return { id: ctx.id, object: "chat.completion.chunk", created: ctx.created, model: ctx.model, system_fingerprint: "fp_scripted" };
}

/** A `chat.completion.chunk` with one choice, as OpenAI sends it. */
function chunk(ctx: ReplyContext, delta: Record<string, unknown>, finish: string | null = null): string {
  const body = { ...chunkHead(ctx), choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
  return `data: ${JSON.stringify(ctx.includeUsage ? { ...body, usage: null } : body)}\n\n`;
}

function toolCallFrames(ctx: ReplyContext, calls: ResolvedToolCall[]): string[] {
  const frames: string[] = [];
  calls.forEach((call, index) => {
    const head = { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } };
    frames.push(chunk(ctx, { tool_calls: [head] }));
    if (call.arguments === "") return;
    for (const piece of splitEven(call.arguments, call.chunks)) {
      frames.push(chunk(ctx, { tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  return frames;
}

/**
 * The SSE events of a streamed answer, `data: [DONE]` last: the role, reasoning deltas, text
 * deltas, tool calls, the finish chunk and (when asked) the usage chunk.
 */
function streamFrames(reply: Reply, ctx: ReplyContext): string[] {
  const calls = resolveToolCalls(reply, ctx);
  const reasoningField = reply.reasoningField ?? "reasoning_content";
  const frames = [chunk(ctx, { role: "assistant", content: "", refusal: null })];
  for (const piece of splitText(reply.reasoning)) frames.push(chunk(ctx, { [reasoningField]: piece }));
  for (const piece of splitText(reply.text)) frames.push(chunk(ctx, { content: piece }));
  frames.push(...toolCallFrames(ctx, calls));
  frames.push(chunk(ctx, {}, finishReason(reply)));
  if (ctx.includeUsage && reply.usage !== null) {
    const last = { ...chunkHead(ctx), choices: [], usage: usageOf(reply, ctx, calls) };
    frames.push(`data: ${JSON.stringify(last)}\n\n`);
  }
  frames.push("data: [DONE]\n\n");
  return frames;
}

// --- transport -------------------------------------------------------------------------------

const encoder = new TextEncoder();
/** Bytes of SSE text gathered into one enqueue when there is no delay. */
const BATCH_CHARS = 32 * 1024;
/** How long a cut stream lingers after its last bytes, so they reach the client first. */
const CUT_LINGER_MS = 20;
const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache" };

type StreamFail = "cut" | "malformed" | "hang" | "error" | undefined;

/**
 * Where a held reply's stream stops until its hold settles: after the role and reasoning frames and
 * the first text frame, or with no text the first tool call's head (with holdBeforeText, after the role frame).
 */
type Hold = { at: number; until: Promise<unknown> };

function heldAfterFirstText(reply: Reply): Hold | undefined {
  if (!reply.hold) return undefined;
  if (reply.holdBeforeText) return { at: 1, until: reply.hold };
  const first = splitText(reply.text).length > 0 || (reply.toolCalls?.length ?? 0) > 0 ? 1 : 0;
  return { at: 1 + splitText(reply.reasoning).length + first, until: reply.hold };
}

/** Resolves once `hold` settles or `signal` aborts, whichever is first. */
function settledOrGone(hold: Promise<unknown>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
    hold.then(() => resolve(), () => resolve());
  });
}

function sseResponse(frames: string[], opts: { delayMs: number; fail: StreamFail; hold: Hold | undefined }): Response {
  if (opts.fail === "hang") return new Response(hangingStream(": scripted hang\n\n"), { headers: SSE_HEADERS });
  let cutAfter: number | undefined;
  if (opts.fail === "malformed") {
    const middle = Math.max(1, Math.floor((frames.length - 1) / 2));
    frames.splice(middle, 0, 'data: {"id":"chatcmpl-malformed","choices":[{"delta":{"content":\n\n');
  }
  if (opts.fail === "cut") cutAfter = Math.max(1, Math.floor((frames.length - 2) / 2));
  if (opts.fail === "error") {
    const middle = Math.max(1, Math.floor((frames.length - 1) / 2));
    frames.splice(middle, frames.length - middle, 'data: {"error":{"message":"internal server error","code":500}}\n\n');
  }
  return new Response(frameStream(frames, { delayMs: opts.delayMs, cutAfter, hold: opts.hold }), { headers: SSE_HEADERS });
}

function jsonResponse(body: Record<string, unknown>, fail: StreamFail): Response {
  const headers = { "content-type": "application/json" };
  const text = JSON.stringify(body);
  if (fail === "hang") return new Response(hangingStream(" "), { headers });
  if (fail === "malformed" || fail === "error") return new Response(text.slice(0, Math.floor(text.length / 2)), { headers });
  if (fail === "cut") {
    const half = text.slice(0, Math.floor(text.length / 2));
    return new Response(frameStream([half], { delayMs: 0, cutAfter: 1 }), { headers });
  }
  return new Response(text, { headers });
}

/** Sends `first` (so the headers go out) and then nothing, until the client goes away. */
function hangingStream(first: string): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(first));
    },
  });
}

/**
 * Streams `frames`, batching them into large writes when there is no delay, one per write after
 * a pause otherwise. With `cutAfter`, sends that many frames and then resets the connection.
 * Stops quietly when the client goes away.
 */
function frameStream(frames: string[], opts: { delayMs: number; cutAfter: number | undefined; hold?: Hold | undefined }): ReadableStream<Uint8Array> {
  const end = opts.cutAfter === undefined ? frames.length : Math.min(opts.cutAfter, frames.length);
  const gone = new AbortController();
  let next = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (opts.delayMs > 0 && next > 0) await sleep(opts.delayMs, gone.signal);
      if (opts.hold && next === opts.hold.at && next > 0) await settledOrGone(opts.hold.until, gone.signal);
      if (gone.signal.aborted) return;
      if (next >= end) return finish(controller);
      const start = next;
      const stop = opts.hold && next < opts.hold.at ? opts.hold.at : end;
      next = opts.delayMs > 0 ? next + 1 : batchEnd(frames, next, stop);
      controller.enqueue(encoder.encode(frames.slice(start, next).join("")));
    },
    cancel() {
      gone.abort();
    },
  });

  async function finish(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    if (opts.cutAfter === undefined) return controller.close();
    await sleep(CUT_LINGER_MS, gone.signal);
    // Erroring with no reason resets the connection without logging anything.
    if (!gone.signal.aborted) controller.error(undefined);
  }
}

function batchEnd(frames: string[], from: number, end: number): number {
  let chars = 0;
  let i = from;
  while (i < end && chars < BATCH_CHARS) chars += frames[i++]?.length ?? 0;
  return i;
}
