import type { SessionBus } from "../bus/index.ts";
import { errorMessage, UserError } from "../errors.ts";
import { displayUrl, type ModelError } from "../model/errors.ts";
import { windowInOverflow } from "../model/overflow.ts";
import type { ToolSpec } from "../model/request.ts";
import type { TodoItem } from "../tools/tool.ts";
import { DEFAULT_CONTEXT, type ResolvedModel } from "../model/resolved.ts";
import type { StoredMessage } from "./records.ts";
import { modelSummary } from "./side-calls.ts";
import type { StepOutcome } from "./turn.ts";
import { HistoryTally, storedTokens, tokensOfChars } from "./tokens.ts";

/** The share of the context window a request may fill before the history is compacted. */
export const COMPACT_AT = 0.8;
/** Room kept for a summary's own answer, and for the summary carried from one part to the next. */
const SUMMARY_ROOM = 4_096;
/** A tool output longer than this is cut first when the summary call would not fit. */
const KEEP_OF_OUTPUT = 600;
/** A request estimated at this many times what the server says it read was cut by the server. */
const CUT_SIGN = 2;
/** Ollama's smallest default window (num_ctx 2048 before 0.6): a cut prompt reads as at least this. */
const SMALLEST_OLLAMA_WINDOW = 2_048;
/** Characters per token when cutting what is sent: fewer than the estimate's, so a cut is enough. */
const CHARS_PER_TOKEN_SENT = 3;

/** What compaction needs of its session: the history, where the summary is kept, and the bus. */
export type CompactionHost = {
  readonly bus: SessionBus;
  messages(): StoredMessage[];
  summary(): { summary: string | null; summarySeq: number | null };
  keepSummary(summary: string, summarySeq: number): void;
  /** Runs the PreCompact hooks (manual: /compact; auto: the window filled). */
  beforeCompact?(trigger: "manual" | "auto", signal: AbortSignal): Promise<void>;
};

/** What a step is about to send, as far as its size goes. */
export type StepRequest = {
  model: ResolvedModel;
  turnId: string;
  todos: readonly TodoItem[];
  system: string;
  tools: readonly ToolSpec[];
  signal: AbortSignal;
};

/**
 * When and how a session's history is compacted: before a step whose request would fill the
 * window (from the usage the server reported, else from an estimate of the request), after a
 * server said the request was too long, and on /compact. The summary covers everything before the
 * running turn's latest step; the turn's task and todo list are said again after it.
 */
export class Compaction {
  /** The last usage a server reported, and what the request it answered was estimated at. */
  private reported: { promptTokens: number; estimate: number } | null = null;
  private lastEstimate = 0;
  /** A window seen in practice (an Ollama server that cut the prompt), smaller than the model's. */
  private seen: { ref: string; window: number } | null = null;
  private readonly tally = new HistoryTally();
  private readonly told = new Set<string>();
  private toolKey: { names: string; tokens: number } | null = null;
  /** After an overflow that compacting could not help: the share of the window the turn's latest tool outputs are cut to. */
  private squeeze: number | null = null;
  /** A reply filled the window mid-way: the next step compacts whatever its estimate. */
  private full = false;

  constructor(private readonly host: CompactionHost) {}

  /** The window compaction works to: the model's, the safe default, or what a server showed it holds. */
  window(model: ResolvedModel): number {
    const known = model.contextLength ?? DEFAULT_CONTEXT;
    return this.seen?.ref === model.ref ? Math.min(known, this.seen.window) : known;
  }

  /** Before a step: compacts when the request would come near the window. */
  async beforeStep(request: StepRequest): Promise<void> {
    this.tellWindow(request.model);
    const estimate = this.estimate(request);
    const projected = this.reported ? this.reported.promptTokens + Math.max(0, estimate - this.reported.estimate) : estimate;
    this.lastEstimate = estimate;
    if (projected < this.window(request.model) * COMPACT_AT && !this.full) return;
    if (request.model.contextLength === null && this.seen?.ref !== request.model.ref) this.tellOnce(`assumed:${request.model.ref}`, assumedWindow(request.model));
    try {
      if (await this.summarise(request.model, request.signal, { auto: true, turnId: request.turnId })) this.lastEstimate = this.estimate(request);
    } catch (error) {
      if (request.signal.aborted) return;
      this.host.bus.emit({ type: "notice", level: "warn", message: `could not compact the history: ${errorMessage(error)}` });
    }
  }

  /**
   * After a server refused a step as too long: compacts, so that the step can be sent once more.
   * Null when it was compacted; else why it could not be (the turn ends with the server's error).
   */
  async afterOverflow(request: StepRequest, error: ModelError): Promise<string | null> {
    this.host.bus.emit({ type: "notice", level: "info", message: `${error.message}: compacting the history and trying again` });
    // The server knows its window better than a guess: the summary is made to fit the one it names.
    const named = windowInOverflow(error.message);
    if (named !== null && named < this.window(request.model)) this.seen = { ref: request.model.ref, window: named };
    try {
      const done = await this.summarise(request.model, request.signal, { auto: true, turnId: request.turnId });
      if (!done) {
        // What is left is the step itself: its tool outputs are sent cut, to half the window.
        if (!this.keptOutputsCut(request)) return `${error.message}; nothing older than this step is left to compact`;
        this.squeeze = 0.5;
      }
      this.lastEstimate = this.estimate(request);
      return null;
    } catch (cause) {
      // Cancelled meanwhile: the step sent again ends at once as cancelled.
      if (request.signal.aborted) return null;
      return `${error.message}; compacting the history failed: ${errorMessage(cause)}`;
    }
  }

  /**
   * A step the server refused as too long before it said anything: compacted, it is sent once
   * more. One whose window filled mid-reply ends with what it said, and the history is compacted
   * before the next request (sending it again would say it all again).
   */
  overflowed(outcome: StepOutcome, model: ResolvedModel): outcome is Extract<StepOutcome, { kind: "failed" }> {
    if (outcome.kind !== "failed" || outcome.error.kind !== "context_overflow") return false;
    const { record } = outcome;
    if (record.text === "" && record.reasoning === "" && record.toolCalls.length === 0) return true;
    this.full = true;
    this.host.bus.emit({ type: "notice", level: "info", message: `the conversation filled the window of ${model.ref}: the history is compacted before the next request` });
    return false;
  }

  /** The server's usage for the request just sent; tells a server that read less than it was sent. */
  reportUsage(model: ResolvedModel, promptTokens: number): void {
    // Some servers send a usage of zeros: that is no report, and the estimate stands.
    if (promptTokens <= 0) return;
    const before = this.reported?.promptTokens ?? 0;
    const short = looksLikeOllama(model) && this.lastEstimate >= CUT_SIGN * promptTokens && this.lastEstimate >= 1_024;
    // Some Ollama versions count only the tokens its prompt cache did not hold (ollama/ollama#3427,
    // #16428): a small reading, or one smaller than the last as the request grew, is that, neither
    // a cut nor the request's size (the estimate stands). A cut prompt reads as the whole window
    // ("truncating input prompt limit=4096 … new=4096"), and Ollama's windows start at 2048.
    if (short && (promptTokens < SMALLEST_OLLAMA_WINDOW || promptTokens < before)) return;
    this.reported = { promptTokens, estimate: this.lastEstimate };
    if (!short) return;
    // Ollama cuts a prompt longer than its num_ctx and says nothing; its usage shows how much it read.
    this.seen = { ref: model.ref, window: promptTokens };
    this.tellOnce(
      `cut:${model.ref}`,
      `the Ollama server at ${displayUrl(model.endpoint.baseUrl)} read only ${promptTokens} tokens of a request of about ${this.lastEstimate}: it cut the conversation to the window it was started with. The history is compacted to fit ${promptTokens} tokens; for more, start Ollama with OLLAMA_CONTEXT_LENGTH or give the model PARAMETER num_ctx in a Modelfile, and set context: under the connection in config.yaml`,
    );
  }

  /**
   * Summarises the history so far and keeps the summary; the full history stays in the store.
   * With a running turn (`turnId`), its latest step stays as it is. False when there was nothing to
   * summarise; throws when the summary call failed.
   */
  async summarise(model: ResolvedModel, signal: AbortSignal, opts: { auto: boolean; turnId?: string }): Promise<boolean> {
    const stored = this.host.messages();
    if (stored.length === 0) throw new UserError("there is nothing to compact yet", 2);
    const previous = this.host.summary();
    const upTo = opts.turnId === undefined ? (stored.at(-1)?.seq ?? 0) : keptFrom(stored, opts.turnId) - 1;
    const covered = stored.filter((m) => m.seq > (previous.summarySeq ?? 0) && m.seq <= upTo);
    if (covered.length === 0) return false;
    await this.host.beforeCompact?.(opts.auto ? "auto" : "manual", signal);
    let summary = previous.summary;
    for (const part of summaryParts(covered, this.window(model), summary)) {
      summary = await modelSummary(model, part, { summary, summarySeq: null }, signal);
    }
    if (summary === null) return false;
    this.host.keepSummary(summary, upTo);
    this.reported = null;
    this.squeeze = null;
    this.full = false;
    this.host.bus.emit({ type: "compacted", summary, auto: opts.auto });
    return true;
  }

  /**
   * What is said after a summary while a turn runs: its task, when the summary covers it, and the
   * todo list. Without these a compacted turn would have lost what it was doing.
   */
  afterSummary(turnId: string | null, todos: readonly TodoItem[]): string | undefined {
    const { summary, summarySeq } = this.host.summary();
    if (summary === null || summarySeq === null) return undefined;
    const parts: string[] = [];
    const task = turnId === null ? undefined : taskOf(this.host.messages(), turnId);
    if (task && task.seq <= summarySeq) parts.push(`The task you are working on now, as the person gave it:\n\n${task.body.text}`);
    if (todos.length > 0) parts.push(`Your todo list:\n${todos.map((t) => `- [${t.status}] ${t.content}`).join("\n")}`);
    return parts.length > 0 ? parts.join("\n\n") : undefined;
  }

  /**
   * The history a step sends. When even after compacting the request would not fit (the running
   * step's own tool outputs are larger than the window), those outputs are sent cut, largest first,
   * with a note; the store keeps them whole. Otherwise the same array, untouched.
   */
  fitted(messages: StoredMessage[], model: ResolvedModel): StoredMessage[] {
    const window = this.window(model);
    const over = this.lastEstimate - Math.floor(window * (this.squeeze ?? COMPACT_AT));
    if (over <= 0) return messages;
    const after = this.host.summary().summarySeq ?? 0;
    const outputs = messages.flatMap((m, i) => (m.role === "tool" && m.seq > after && m.body.output.length > 2 * KEEP_OF_OUTPUT ? [{ i, length: m.body.output.length }] : []));
    if (outputs.length === 0) return messages;
    outputs.sort((a, b) => b.length - a.length);
    const sent = [...messages];
    let chars = Math.ceil(over * CHARS_PER_TOKEN_SENT);
    for (const { i, length } of outputs) {
      if (chars <= 0) break;
      const message = sent[i];
      if (message?.role !== "tool") continue;
      const keep = Math.max(2 * KEEP_OF_OUTPUT, length - chars);
      chars -= length - keep;
      // What is sent is smaller than the history: a usage that says so is no sign of a cut prompt.
      this.lastEstimate -= tokensOfChars(length - keep);
      sent[i] = { ...message, body: { ...message.body, output: outputCut(message.body.output, keep, window) } };
      this.tellOnce(`fit:${message.seq}`, `the output of ${message.body.name} is too long for the window of ${model.ref} (${window} tokens): it is sent cut to ${keep} of its ${length} characters`);
    }
    return sent;
  }

  /** Whether the running step has tool outputs that {@link fitted} can cut. */
  private keptOutputsCut(request: StepRequest): boolean {
    const after = this.host.summary().summarySeq ?? 0;
    return this.host.messages().some((m) => m.role === "tool" && m.seq > after && m.turnId === request.turnId && m.body.output.length > 2 * KEEP_OF_OUTPUT);
  }

  /** The estimated tokens of a step's request: counted as the history grows, never serialised. */
  private estimate(request: StepRequest): number {
    const { summary, summarySeq } = this.host.summary();
    const history = this.tally.count(this.host.messages(), summarySeq);
    const extra = summary === null ? 0 : tokensOfChars(summary.length + (this.afterSummary(request.turnId, request.todos)?.length ?? 0) + 120);
    return tokensOfChars(request.system.length) + this.toolsTokens(request.tools) + history + extra;
  }

  private toolsTokens(tools: readonly ToolSpec[]): number {
    // The specs are made afresh each step; the same tools cost the same, so they are sized once.
    const names = tools.map((t) => t.function.name).join(",");
    if (this.toolKey?.names === names) return this.toolKey.tokens;
    const tokens = tokensOfChars(specsLength(tools));
    this.toolKey = { names, tokens };
    return tokens;
  }

  /** Says once per model when its window is the one an Ollama server was started with (and config.yaml does not say). */
  private tellWindow(model: ResolvedModel): void {
    if (!looksLikeOllama(model) || model.endpoint.contextLength !== undefined) return;
    const counted = model.contextLength === null ? `lembas assumes ${DEFAULT_CONTEXT} tokens` : `lembas counts on the model's ${model.contextLength} tokens`;
    this.tellOnce(
      `ollama:${model.ref}`,
      `the window of ${model.ref} is the one its Ollama server was started with (OLLAMA_CONTEXT_LENGTH, or PARAMETER num_ctx in a Modelfile; Ollama's OpenAI-compatible API cannot set num_ctx per request): ${counted}; set context: under the connection in config.yaml to match it`,
    );
  }

  private tellOnce(key: string, message: string): void {
    if (this.told.has(key)) return;
    this.told.add(key);
    this.host.bus.emit({ type: "notice", level: "info", message });
  }
}

/** Each spec's JSON length, kept for the process: toolSpecs makes a tool's spec once, and every session's first step sizes the same ones. */
const specLengths = new WeakMap<ToolSpec, number>();

/** `JSON.stringify(specs).length`, each spec serialized once a process. */
function specsLength(specs: readonly ToolSpec[]): number {
  let length = 2 + Math.max(0, specs.length - 1);
  for (const spec of specs) {
    let known = specLengths.get(spec);
    if (known === undefined) {
      known = JSON.stringify(spec).length;
      specLengths.set(spec, known);
    }
    length += known;
  }
  return length;
}

function assumedWindow(model: ResolvedModel): string {
  return `the server does not say how large the context window of ${model.ref} is: the history is compacted at the assumed ${DEFAULT_CONTEXT} tokens (set context: under the connection in config.yaml)`;
}

/**
 * Whether the model is served by Ollama: the dialect table's word (model/dialects.ts). Ollama's
 * /v1 takes no `options` (docs.ollama.com, OpenAI compatibility, "Setting the context size"), so
 * num_ctx cannot be sent from here.
 */
function looksLikeOllama(model: ResolvedModel): boolean {
  return model.dialect === "ollama";
}

/** The person's message that started a turn (not a steering one). */
function taskOf(stored: readonly StoredMessage[], turnId: string): Extract<StoredMessage, { role: "user" }> | undefined {
  for (const message of stored) {
    if (message.turnId === turnId && message.role === "user" && !message.body.steer) return message;
  }
  return undefined;
}

/**
 * The seq from which a running turn's messages stay as they are: its last model reply and the tool
 * results after it, or its task when it has no reply yet.
 */
function keptFrom(stored: readonly StoredMessage[], turnId: string): number {
  const lastReply = stored.findLast((m) => m.turnId === turnId && m.role === "assistant");
  if (lastReply) return lastReply.seq;
  return taskOf(stored, turnId)?.seq ?? (stored.at(-1)?.seq ?? 0) + 1;
}

/**
 * The messages a summary covers, in parts that each fit the window with room for the answer:
 * first the older tool outputs are cut (oldest first), then what still does not fit is split into
 * parts summarised one after another, each over the summary of those before.
 */
export function summaryParts(messages: readonly StoredMessage[], window: number, previous: string | null): StoredMessage[][] {
  const room = Math.min(SUMMARY_ROOM, Math.floor(window / 8));
  const budget = Math.max(256, Math.floor(window * COMPACT_AT) - 2 * room - tokensOfChars(previous?.length ?? 0) - 200);
  const cut = [...messages];
  let total = cut.reduce((sum, m) => sum + storedTokens(m), 0);
  for (let i = 0; i < cut.length && total > budget; i++) {
    const message = cut[i];
    if (message?.role !== "tool" || message.body.output.length <= KEEP_OF_OUTPUT) continue;
    const shorter = cutOutput(message);
    total += storedTokens(shorter) - storedTokens(message);
    cut[i] = shorter;
  }
  if (total <= budget) return [cut];
  const parts: StoredMessage[][] = [];
  let part: StoredMessage[] = [];
  let size = 0;
  for (const original of cut) {
    const message = fitted(original, budget);
    const tokens = storedTokens(message);
    // A part never starts with a tool result: it would lose the call it answers.
    if (size + tokens > budget && part.length > 0 && message.role !== "tool") {
      parts.push(part);
      part = [];
      size = 0;
    }
    part.push(message);
    size += tokens;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}

/** An output's head and tail, `keep` characters in all, and what was left out between them. */
function outputCut(output: string, keep: number, window: number): string {
  const head = output.slice(0, Math.ceil(keep * 0.7));
  const tail = output.slice(output.length - (keep - head.length));
  return `${head}\n[… ${output.length - keep} characters of this output left out: all of it does not fit the model's window of ${window} tokens; ask for a smaller part]\n${tail}`;
}

function cutOutput(message: Extract<StoredMessage, { role: "tool" }>): StoredMessage {
  const { output } = message.body;
  const head = output.slice(0, KEEP_OF_OUTPUT);
  return { ...message, body: { ...message.body, output: `${head}\n[… ${output.length - head.length} more characters of this output left out of the summary]`, images: [] } };
}

/** A message alone larger than a part: its text is cut to fit. */
function fitted(message: StoredMessage, budget: number): StoredMessage {
  if (storedTokens(message) <= budget) return message;
  const chars = Math.floor(budget * 3);
  if (message.role === "user") return { ...message, body: { ...message.body, text: `${message.body.text.slice(0, chars)}\n[… cut to fit the summary]`, attachments: [] } };
  if (message.role === "tool") return { ...message, body: { ...message.body, output: `${message.body.output.slice(0, chars)}\n[… cut to fit the summary]`, images: [] } };
  const calls = message.body.toolCalls.map((c) => ({ ...c, arguments: c.arguments.length > 200 ? "{}" : c.arguments }));
  return { ...message, body: { ...message.body, text: message.body.text.slice(0, chars), toolCalls: calls } };
}
