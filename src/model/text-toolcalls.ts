import { dialectById } from "./dialects.ts";
import type { Endpoint } from "./endpoint.ts";
import type { ModelEvent } from "./events.ts";
import type { ToolSpec } from "./request.ts";
import { JsonScan, jsonCalls, mistralCalls, opensUnclosed, parameterType, pythonicCalls, tagCalls, type TextCall } from "./text-call-values.ts";

/**
 * Tool calls a model wrote into its answer text, because the server has no parser for its format
 * (or none was switched on), taken back out as `tool_call_delta` events. The formats, as the
 * servers that do parse them read them:
 *
 * | format                                                    | where it is documented                                       |
 * |-----------------------------------------------------------|--------------------------------------------------------------|
 * | `<tool_call>{"name": …, "arguments": {…}}</tool_call>`    | Hermes / Qwen 2.5–3 chat templates ("For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags"); vLLM `hermes` parser, which also takes an unclosed last tag |
 * | `<tool_call><function=name><parameter=key>value</parameter></function></tool_call>` | Qwen3-Coder's template and its `qwen3coder_tool_parser.py` (vLLM `qwen3_xml`): values are text, typed by the tool's schema |
 * | ```` ```json {"name": …, "arguments"\|"parameters": …} ```` | what Qwen 2.5 Coder writes through Ollama when its template's parser misses (agents' Ollama adapters parse it by hand) |
 * | `<|python_tag|>{"name": …, "parameters": {…}}`            | Llama 3.1/3.2 prompt format; vLLM `llama3_json`, SGLang `Llama32Detector`; several calls joined by `;` |
 * | `{"type": "function", "name": …, "parameters": …}` as the whole answer | Llama 3.1 JSON tool calling (vLLM `llama3_json`: the output must start with `{`) |
 * | `[get_weather(city="Paris"), …]` as the whole answer     | Llama 3.2 / 4 pythonic calls (vLLM `pythonic`, `llama4_pythonic`) |
 * | `[TOOL_CALLS][{"name": …, "arguments": …}]`, `[TOOL_CALLS]name{…}`, `[TOOL_CALLS]name[ARGS]{…}` | Mistral tokenizers before v11 and from v11 (vLLM `mistral` parser; llama.cpp `mistral-nemo`) |
 *
 * A stream's last event is its `finish` or `error` (see client.ts): what is held then is decided.
 * Only a tool the turn offered counts, and its arguments must be a JSON object (a JSON text of
 * one is taken too); anything else stays text, as does a marker cut off by the stream's end.
 *
 * A call counts only as the answer or its tail: one followed by anything but whitespace or more
 * calls is an example the model showed, and stays text. So calls are held until the answer ends,
 * and given then. Once the server sends a tool call of its own, it parses calls itself: what is
 * held is text, and nothing more is read for calls in the turn ({@link NativeCalls}).
 *
 * Streaming: text from a marker on is held back until it is decided, then given as calls or
 * flushed as text. The check per text chunk is one scan for the characters a marker starts with
 * (`<`, `` ` ``, `[`, and `{` only at the answer's start); a batch with none passes through as it
 * came, without a copy.
 */
export class TextToolCalls {
  private held: string | null = null;
  private kind: Kind = "maybe";
  /** Whether the held text began the answer (nothing but whitespace before it). */
  private heldAtStart = false;
  /** Where to look for the closer next, so a long held call is not searched from its start per chunk. */
  private searchFrom = 0;
  /** The held text's last few characters, where a closer split over chunks begins. */
  private tail = "";
  /** Where a fence's body starts, once its opening line said it may be a call (-1: not yet). */
  private fenceBody = -1;
  /** For a bare JSON answer: where its first value closes, read chunk by chunk. */
  private scan: JsonScan | null = null;
  private atStart = true;
  private pending = "";
  private made = 0;
  /** Calls decided, with their text from the first on, and the whitespace in it: they wait until the answer ends or prose follows. */
  private waiting: { calls: TextCall[]; text: string; space: string } | null = null;

  /**
   * @param offered the names of the tools the turn offered
   * @param typeOf the JSON Schema type of a tool's parameter, for formats whose values are text
   * @param native the turn's word on the server's own tool calls, set here when one comes
   */
  constructor(
    private readonly offered: ReadonlySet<string>,
    private readonly typeOf: (tool: string, parameter: string) => string | undefined = () => undefined,
    private readonly native: NativeCalls = { seen: false },
  ) {}

  /** The batch with text tool calls taken out; the same array when nothing in it needs a look. */
  push(batch: ModelEvent[]): ModelEvent[] {
    if (this.passes(batch)) return batch;
    const out: ModelEvent[] = [];
    for (const event of batch) {
      switch (event.type) {
        case "text":
          if (this.native.seen) {
            out.push(event);
            break;
          }
          this.feed(event.delta, out);
          this.flushText(out);
          break;
        case "tool_call_delta":
          this.stopReading(out);
          out.push(event);
          break;
        case "finish":
          this.end(out);
          out.push(this.made > 0 && event.reason === "end_turn" ? { type: "finish", reason: "tool_calls" } : event);
          break;
        case "error":
          this.end(out);
          out.push(event);
          break;
        default:
          out.push(event);
      }
    }
    return out;
  }

  /** The hot path: true when no event of the batch needs more than passing on. */
  private passes(batch: readonly ModelEvent[]): boolean {
    if (this.native.seen) return true;
    if (this.held !== null || this.waiting !== null) return false;
    for (const event of batch) {
      if (event.type === "tool_call_delta") {
        this.native.seen = true;
        return true;
      }
      if (event.type === "text" && (this.atStart || TRIGGER.test(event.delta))) return false;
    }
    return true;
  }

  /** The server sent a call of its own: what is held and waiting is text, and nothing more is read. */
  private stopReading(out: ModelEvent[]): void {
    if (this.native.seen) return;
    this.native.seen = true;
    this.unwait();
    if (this.held !== null) this.release(this.held.length, null, out);
    this.flushText(out);
  }

  private feed(delta: string, out: ModelEvent[]): void {
    let rest: string | null = delta;
    if (this.held !== null) {
      const decidable = this.mayDecide(delta);
      this.held += delta;
      if (!decidable) return;
      rest = this.resolve(out);
    }
    while (rest !== null && rest !== "") {
      const at = this.nextHold(rest);
      if (at < 0) {
        this.text(rest);
        return;
      }
      if (at > 0) this.text(rest.slice(0, at));
      this.heldAtStart = this.atStart;
      this.atStart = false;
      this.held = rest.slice(at);
      this.kind = "maybe";
      this.searchFrom = 0;
      rest = this.resolve(out);
    }
  }

  /**
   * Whether `delta` can change what the held text is: inside a call's body only a closer can (or
   * the bound), so the body is not searched again from its start for every chunk.
   */
  private mayDecide(delta: string): boolean {
    if ((this.held?.length ?? 0) + delta.length > MAX_HELD) return true;
    switch (this.kind) {
      case "maybe":
        return true;
      case "tag":
        return this.closerIn(delta, TAG_CLOSE);
      case "fence":
        return this.fenceBody < 0 || this.closerIn(delta, FENCE);
      case "start-json":
        return this.scan !== null && !this.scan.decided && this.scan.read(delta);
      default:
        return false;
    }
  }

  private closerIn(delta: string, closer: string): boolean {
    const window = this.tail + delta;
    this.tail = window.slice(-(closer.length - 1));
    return window.includes(closer);
  }

  /**
   * Where in `s` text must start being held (-1: nowhere): a trigger character where a marker
   * could begin (so `a < b` or a link's `[` is never held), or a `{` / `[` opening the answer.
   */
  private nextHold(s: string): number {
    let from = 0;
    if (this.atStart) {
      const first = s.search(NON_SPACE);
      if (first < 0) return -1;
      const c = s[first];
      if (c === "{" || c === "[") return first;
      this.atStart = false;
      from = first;
    }
    for (;;) {
      TRIGGERS.lastIndex = from;
      const found = TRIGGERS.exec(s);
      if (!found) return -1;
      if (couldBeMarker(s, found.index)) return found.index;
      from = found.index + 1;
    }
  }

  /** Text decided to be text; pieces of one chunk go out as one event. Prose after calls makes them text. */
  private text(delta: string): void {
    const prose = NON_SPACE.test(delta);
    if (this.atStart && prose) this.atStart = false;
    if (this.waiting && !prose && this.waiting.space.length + delta.length <= MAX_HELD) {
      this.waiting.text += delta;
      this.waiting.space += delta;
      return;
    }
    this.unwait();
    this.pending += delta;
  }

  /** Calls decided: they wait for the answer's end. */
  private wait(calls: readonly TextCall[], text: string): void {
    if (!this.waiting) this.waiting = { calls: [], text: "", space: "" };
    this.waiting.calls.push(...calls);
    this.waiting.text += text;
  }

  /** The waiting calls were an example: they are given as the text they were. */
  private unwait(): void {
    if (!this.waiting) return;
    this.pending += this.waiting.text;
    this.waiting = null;
  }

  private flushText(out: ModelEvent[]): void {
    if (!this.pending) return;
    out.push({ type: "text", delta: this.pending });
    this.pending = "";
  }

  /**
   * Decides what it can of the held text: gives calls or text for its decided front and returns
   * what follows (to be scanned afresh), or null while the rest must still be held.
   */
  private resolve(out: ModelEvent[]): string | null {
    for (;;) {
      const held = this.held;
      if (held === null) return null;
      const step = this.decide(held);
      if (step.kind === "wait") {
        if (held.length <= MAX_HELD) return null;
        // A bounded hold: past it, the text is given as it is.
        return this.release(held.length, null, out);
      }
      if (step.kind === "enter") {
        this.kind = step.into;
        continue;
      }
      return this.release(step.length, step.kind === "calls" ? step.calls : null, out);
    }
  }

  /** Ends the hold: `length` chars of it become calls (or text), the rest is returned. */
  private release(length: number, calls: TextCall[] | null, out: ModelEvent[]): string {
    const held = this.held ?? "";
    this.held = null;
    this.kind = "maybe";
    this.searchFrom = 0;
    this.tail = "";
    this.fenceBody = -1;
    this.scan = null;
    if (calls) this.wait(calls, held.slice(0, length));
    else this.text(held.slice(0, length));
    return held.slice(length);
  }

  private decide(held: string): Step {
    switch (this.kind) {
      case "maybe":
        return this.whichMarker(held);
      case "tag":
        return this.closed(held, TAG_OPEN.length, TAG_CLOSE, (body) => tagCalls(body, this.offered, this.typeOf));
      case "fence":
        return this.fence(held);
      case "start-json":
        return this.startJson(held);
      case "rest":
      case "start-pythonic":
        return WAIT;
    }
  }

  /**
   * A bare JSON answer is decided by its first value: not a call, it is text from then on; a
   * call, the rest is held to the end (more calls may follow).
   */
  private startJson(held: string): Step {
    if (!this.scan) {
      this.scan = new JsonScan();
      this.scan.read(held);
    }
    if (this.scan.decided || this.scan.closedAt < 0) return WAIT;
    this.scan.decided = true;
    const length = this.scan.closedAt + 1;
    return jsonCalls(held.slice(0, length), this.offered) ? WAIT : { kind: "text", length };
  }

  private whichMarker(held: string): Step {
    for (const [marker, into] of MARKERS) {
      if (held.startsWith(marker)) return { kind: "enter", into };
      if (marker.startsWith(held)) return WAIT;
    }
    if (this.heldAtStart && (held[0] === "{" || held[0] === "[")) return this.startsLikeCall(held);
    return { kind: "text", length: 1 };
  }

  /** A bare JSON object or `[…]` list at the answer's start: held only while its first key or name could be a call's. */
  private startsLikeCall(held: string): Step {
    const key = JSON_FIRST_KEY.exec(held);
    if (key) return CALL_KEYS.has(key[1] ?? "") ? { kind: "enter", into: "start-json" } : { kind: "text", length: held.length };
    const name = PYTHONIC_FIRST_NAME.exec(held);
    if (name) return this.offered.has(name[1] ?? "") ? { kind: "enter", into: "start-pythonic" } : { kind: "text", length: held.length };
    return UNDECIDED_START.test(held) ? WAIT : { kind: "text", length: held.length };
  }

  /** A fence: its info line must say json (or nothing, or tool_call), its body start like JSON, and it must close. */
  private fence(held: string): Step {
    if (this.fenceBody >= 0) return this.closed(held, this.fenceBody, FENCE, (body) => jsonCalls(body, this.offered));
    const newline = held.indexOf("\n", FENCE.length);
    if (newline < 0) return held.length > FENCE.length + 20 ? { kind: "text", length: held.length } : WAIT;
    const info = held.slice(FENCE.length, newline).trim().toLowerCase();
    if (!FENCE_INFOS.has(info)) return { kind: "text", length: newline + 1 };
    const first = held.slice(newline + 1).search(NON_SPACE);
    if (first < 0) return WAIT;
    const c = held[newline + 1 + first];
    if (c !== "{" && c !== "[") return { kind: "text", length: newline + 1 };
    this.fenceBody = newline + 1;
    return this.closed(held, newline + 1, "```", (body) => jsonCalls(body, this.offered));
  }

  /** Held text from a marker to its closer: decided once the closer came. */
  private closed(held: string, bodyStart: number, closer: string, parse: (body: string) => TextCall[] | null): Step {
    for (;;) {
      const at = held.indexOf(closer, Math.max(bodyStart, this.searchFrom));
      if (at < 0) {
        this.searchFrom = Math.max(bodyStart, held.length - closer.length + 1);
        this.tail = held.slice(-(closer.length - 1));
        return WAIT;
      }
      const body = held.slice(bodyStart, at);
      const calls = parse(body);
      const length = at + closer.length;
      if (calls) return { kind: "calls", calls, length };
      // A closer inside the arguments' strings (a file holding ``` or </tool_call>) is not the end.
      this.searchFrom = at + 1;
      if (!opensUnclosed(body)) return { kind: "text", length };
    }
  }

  /** The stream is over: what is held is decided with nothing more to come, and the calls that end the answer are given. */
  private end(out: ModelEvent[]): void {
    const held = this.held;
    if (held !== null) this.release(held.length, this.finalCalls(held), out);
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting) {
      this.pending += waiting.space;
      this.emitCalls(waiting.calls, out);
    }
    this.flushText(out);
  }

  private finalCalls(held: string): TextCall[] | null {
    switch (this.kind) {
      case "maybe":
        return null;
      case "tag":
        // vLLM's hermes parser takes a last <tool_call> whose closing tag never came.
        return tagCalls(held.slice(TAG_OPEN.length), this.offered, this.typeOf);
      case "fence":
        return null;
      case "rest":
        return held.startsWith(PYTHON_TAG) ? jsonCalls(held.slice(PYTHON_TAG.length), this.offered) : mistralCalls(held.slice(MISTRAL.length), this.offered);
      case "start-json":
        return jsonCalls(held, this.offered);
      case "start-pythonic":
        return pythonicCalls(held, this.offered);
    }
  }

  /** The calls as the server's would come; none of the server's own came in this stream (see stopReading). */
  private emitCalls(calls: readonly TextCall[], out: ModelEvent[]): void {
    this.flushText(out);
    for (const call of calls) {
      out.push({ type: "tool_call_delta", index: this.made++, name: call.name, argumentsDelta: JSON.stringify(call.arguments) });
    }
  }
}

/** What a turn knows of its server's tool calls: `seen` once it sent one of its own, from when on none are read from text. */
export type NativeCalls = { seen: boolean };

/**
 * A {@link TextToolCalls} for a request, or null where text is not read for calls: the request
 * offers no tools; the server parses calls itself (the dialect table's `textToolCalls`, over which
 * the connection's `text_tool_calls` wins); or it already sent calls of its own in this turn.
 */
export function textToolCallsFor(tools: readonly ToolSpec[], endpoint: Pick<Endpoint, "dialect" | "textToolCalls">, native: NativeCalls): TextToolCalls | null {
  if (tools.length === 0 || native.seen || !readsTextCalls(endpoint)) return null;
  const byName = new Map(tools.map((t) => [t.function.name, t.function.parameters] as const));
  return new TextToolCalls(new Set(byName.keys()), (tool, parameter) => parameterType(byName.get(tool), parameter), native);
}

/** Whether a server's answers are read for calls written as text: the connection's word, else its family's. */
export function readsTextCalls(endpoint: Pick<Endpoint, "dialect" | "textToolCalls">): boolean {
  return endpoint.textToolCalls ?? dialectById(endpoint.dialect).textToolCalls;
}
type Kind = "maybe" | "tag" | "fence" | "rest" | "start-json" | "start-pythonic";
type Step =
  | { kind: "wait" }
  | { kind: "enter"; into: Kind }
  | { kind: "text"; length: number }
  | { kind: "calls"; calls: TextCall[]; length: number };

const WAIT: Step = { kind: "wait" };
const TAG_OPEN = "<tool_call>";
const TAG_CLOSE = "</tool_call>";
const PYTHON_TAG = "<|python_tag|>";
const MISTRAL = "[TOOL_CALLS]";
const FENCE = "```";
const MARKERS: ReadonlyArray<readonly [string, Kind]> = [
  [TAG_OPEN, "tag"],
  [PYTHON_TAG, "rest"],
  [MISTRAL, "rest"],
  [FENCE, "fence"],
];
/** The characters a marker starts with. */
const TRIGGER = /[<`[]/;
const TRIGGERS = /[<`[]/g;
const NON_SPACE = /\S/;
/** The most text held back for one undecided call: past it, it is shown as text. */
const MAX_HELD = 1024 * 1024;
const FENCE_INFOS = new Set(["", "json", "tool_call", "tool_code"]);
/** The first key of a JSON object (or of a list's first object) at the answer's start. */
const JSON_FIRST_KEY = /^(?:\[\s*)?\{\s*"([^"\\]*)"/;
const PYTHONIC_FIRST_NAME = /^\[\s*([A-Za-z_][\w.]*)\s*\(/;
/** A start that could still become either of the above. */
const UNDECIDED_START = /^(?:\[\s*)?(?:\{\s*(?:"[^"\\]*)?)?$|^\[\s*[A-Za-z_][\w.]*\s*$/;
/** The keys a call object starts with in the formats above. */
const CALL_KEYS = new Set(["name", "type", "function", "arguments", "parameters"]);

/** Whether a marker begins at `at` of `s`, or could, with the chunks to come. */
function couldBeMarker(s: string, at: number): boolean {
  for (const [marker] of MARKERS) {
    let k = 0;
    while (k < marker.length && at + k < s.length && s.charCodeAt(at + k) === marker.charCodeAt(k)) k++;
    if (k === marker.length || at + k === s.length) return true;
  }
  return false;
}

