import type { ModelEvent, ToolCallDelta } from "./events.ts";
import type { ToolSpec } from "./request.ts";

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
  private nextIndex = 0;
  private native = new Map<number, number>();

  /**
   * @param offered the names of the tools the turn offered
   * @param typeOf the JSON Schema type of a tool's parameter, for formats whose values are text
   */
  constructor(
    private readonly offered: ReadonlySet<string>,
    private readonly typeOf: (tool: string, parameter: string) => string | undefined = () => undefined,
  ) {}

  /** The batch with text tool calls taken out; the same array when nothing in it needs a look. */
  push(batch: ModelEvent[]): ModelEvent[] {
    if (this.passes(batch)) return batch;
    const out: ModelEvent[] = [];
    for (const event of batch) {
      switch (event.type) {
        case "text":
          this.feed(event.delta, out);
          this.flushText(out);
          break;
        case "tool_call_delta":
          out.push(this.renumbered(event));
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
    if (this.held !== null) return false;
    for (const event of batch) {
      if (event.type === "text") {
        if (this.atStart) return false;
        if (TRIGGER.test(event.delta)) return false;
      } else if (event.type === "tool_call_delta") {
        // Once calls came from the text, the server's own need new indexes (see renumbered).
        if (this.made > 0) return false;
        this.nextIndex = Math.max(this.nextIndex, event.index + 1);
        this.native.set(event.index, event.index);
      } else if (event.type === "finish" && this.made > 0) {
        return false;
      }
    }
    return true;
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

  /** Text decided to be text; pieces of one chunk go out as one event. */
  private text(delta: string): void {
    if (this.atStart && NON_SPACE.test(delta)) this.atStart = false;
    this.pending += delta;
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
    if (calls) this.emitCalls(calls, out);
    else this.text(held.slice(0, length));
    return held.slice(length);
  }

  private decide(held: string): Step {
    switch (this.kind) {
      case "maybe":
        return this.whichMarker(held);
      case "tag":
        return this.closed(held, TAG_OPEN.length, TAG_CLOSE, (body) => this.tagCalls(body));
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
    return this.jsonCalls(held.slice(0, length)) ? WAIT : { kind: "text", length };
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
    if (this.fenceBody >= 0) return this.closed(held, this.fenceBody, FENCE, (body) => this.jsonCalls(body));
    const newline = held.indexOf("\n", FENCE.length);
    if (newline < 0) return held.length > FENCE.length + 20 ? { kind: "text", length: held.length } : WAIT;
    const info = held.slice(FENCE.length, newline).trim().toLowerCase();
    if (!FENCE_INFOS.has(info)) return { kind: "text", length: newline + 1 };
    const first = held.slice(newline + 1).search(NON_SPACE);
    if (first < 0) return WAIT;
    const c = held[newline + 1 + first];
    if (c !== "{" && c !== "[") return { kind: "text", length: newline + 1 };
    this.fenceBody = newline + 1;
    return this.closed(held, newline + 1, "```", (body) => this.jsonCalls(body));
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

  /** The stream is over: what is held is decided with nothing more to come. */
  private end(out: ModelEvent[]): void {
    const held = this.held;
    if (held === null) return;
    const calls = this.finalCalls(held);
    this.release(held.length, calls, out);
    this.flushText(out);
  }

  private finalCalls(held: string): TextCall[] | null {
    switch (this.kind) {
      case "maybe":
        return null;
      case "tag":
        // vLLM's hermes parser takes a last <tool_call> whose closing tag never came.
        return this.tagCalls(held.slice(TAG_OPEN.length));
      case "fence":
        return null;
      case "rest":
        return held.startsWith(PYTHON_TAG) ? this.jsonCalls(held.slice(PYTHON_TAG.length)) : this.mistralCalls(held.slice(MISTRAL.length));
      case "start-json":
        return this.jsonCalls(held);
      case "start-pythonic":
        return pythonicCalls(held, this.offered);
    }
  }

  /** A `<tool_call>` body: JSON, or Qwen3-Coder's `<function=…>` form. */
  private tagCalls(body: string): TextCall[] | null {
    const trimmed = body.trim();
    if (!trimmed.startsWith(XML_FUNCTION)) return this.jsonCalls(body);
    const match = XML_CALL.exec(trimmed);
    const name = match?.[1]?.trim() ?? "";
    if (!match || !this.offered.has(name)) return null;
    const args: Record<string, unknown> = {};
    let rest = (match[2] ?? "").trim();
    while (rest) {
      const param = XML_PARAMETER.exec(rest);
      if (!param) return null;
      const key = param[1]?.trim() ?? "";
      args[key] = typedValue(trimNewline(param[2] ?? ""), this.typeOf(name, key));
      rest = rest.slice(param[0].length).trim();
    }
    return [{ name, arguments: args }];
  }

  /** One or more JSON call objects (or arrays of them), separated by whitespace, `;` or `,`. */
  private jsonCalls(body: string): TextCall[] | null {
    const values = splitJsonValues(body);
    if (!values || values.length === 0) return null;
    const calls: TextCall[] = [];
    for (const text of values) {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return null;
      }
      for (const item of Array.isArray(value) ? value : [value]) {
        const call = callOf(item, this.offered);
        if (!call) return null;
        calls.push(call);
      }
    }
    return calls.length > 0 ? calls : null;
  }

  /** After `[TOOL_CALLS]`: a JSON list (before v11), or `name{…}` / `name[ARGS]{…}` parts, each after its own marker. */
  private mistralCalls(body: string): TextCall[] | null {
    const trimmed = body.trim();
    if (trimmed.startsWith("[") || trimmed.startsWith("{")) return this.jsonCalls(trimmed);
    const calls: TextCall[] = [];
    for (const part of trimmed.split(MISTRAL)) {
      const match = MISTRAL_NAMED.exec(part.trim());
      if (!match) return null;
      const name = match[1] ?? "";
      const args = objectOf(match[2] ?? "");
      if (!this.offered.has(name) || !args) return null;
      calls.push({ name, arguments: args });
    }
    return calls.length > 0 ? calls : null;
  }

  private emitCalls(calls: readonly TextCall[], out: ModelEvent[]): void {
    this.flushText(out);
    for (const call of calls) {
      this.made++;
      out.push({ type: "tool_call_delta", index: this.nextIndex++, name: call.name, argumentsDelta: JSON.stringify(call.arguments) });
    }
  }

  /** A server's own tool call keeps an index apart from the calls taken from the text. */
  private renumbered(event: ToolCallDelta): ToolCallDelta {
    let index = this.native.get(event.index);
    if (index === undefined) {
      index = this.nextIndex++;
      this.native.set(event.index, index);
    }
    return index === event.index ? event : { ...event, index };
  }
}

/** A {@link TextToolCalls} for the tools a request offers; null when it offers none (nothing to look for). */
export function textToolCallsFor(tools: readonly ToolSpec[]): TextToolCalls | null {
  if (tools.length === 0) return null;
  const byName = new Map(tools.map((t) => [t.function.name, t.function.parameters] as const));
  return new TextToolCalls(new Set(byName.keys()), (tool, parameter) => parameterType(byName.get(tool), parameter));
}

type TextCall = { name: string; arguments: Record<string, unknown> };
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
const MISTRAL_NAMED = /^([A-Za-z_][\w.-]*)\s*(?:\[CALL_ID\][A-Za-z0-9]+)?\s*(?:\[ARGS\])?\s*(\{[\s\S]*\})$/;

const XML_FUNCTION = "<function=";
const XML_CALL = /^<function=([^>\n]+)>([\s\S]*)<\/function>$/;
const XML_PARAMETER = /^<parameter=([^>\n]+)>([\s\S]*?)<\/parameter>/;

/** Whether a marker begins at `at` of `s`, or could, with the chunks to come. */
function couldBeMarker(s: string, at: number): boolean {
  for (const [marker] of MARKERS) {
    let k = 0;
    while (k < marker.length && at + k < s.length && s.charCodeAt(at + k) === marker.charCodeAt(k)) k++;
    if (k === marker.length || at + k === s.length) return true;
  }
  return false;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A call object in any of the JSON shapes: `{name, arguments|parameters}`, with `type`, or wrapping `function`. */
function callOf(value: unknown, offered: ReadonlySet<string>): TextCall | null {
  if (!isRecord(value)) return null;
  const inner = isRecord(value.function) ? value.function : value;
  const name = inner.name;
  if (typeof name !== "string" || !offered.has(name)) return null;
  const raw = "arguments" in inner ? inner.arguments : inner.parameters;
  const args = typeof raw === "string" ? objectOf(raw) : isRecord(raw) ? raw : null;
  return args ? { name, arguments: args } : null;
}

/** The type a tool's JSON Schema gives a parameter (the first non-null one of a list). */
function parameterType(schema: Record<string, unknown> | undefined, parameter: string): string | undefined {
  const properties = schema?.properties;
  if (!isRecord(properties)) return undefined;
  const property = properties[parameter];
  if (!isRecord(property)) return undefined;
  const type = property.type;
  if (typeof type === "string") return type;
  return Array.isArray(type) ? type.find((t): t is string => typeof t === "string" && t !== "null") : undefined;
}

/** A parameter written as text, typed as its schema says; text that does not read as that type stays text (the tool's check says why). */
function typedValue(text: string, type: string | undefined): unknown {
  switch (type) {
    case "integer":
    case "number": {
      const n = Number(text.trim());
      return text.trim() !== "" && Number.isFinite(n) ? n : text;
    }
    case "boolean": {
      const t = text.trim().toLowerCase();
      return t === "true" ? true : t === "false" ? false : text;
    }
    case "object":
    case "array":
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    default:
      return text;
  }
}

/** Qwen3-Coder writes a value on lines of its own: one newline either side is the layout's. */
function trimNewline(text: string): string {
  const start = text.startsWith("\n") ? 1 : 0;
  const end = text.endsWith("\n") ? text.length - 1 : text.length;
  return text.slice(start, Math.max(start, end));
}

function objectOf(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * The top-level `{…}` / `[…]` values of `text`, when that is all it holds (separated by
 * whitespace, `;` or `,`); null when anything else is there or a value is not closed.
 */
export function splitJsonValues(text: string): string[] | null {
  const values: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === " " || c === "\n" || c === "\r" || c === "\t" || c === ";" || c === ",") {
      i++;
      continue;
    }
    if (c !== "{" && c !== "[") return null;
    const end = closingOf(text, i);
    if (end < 0) return null;
    values.push(text.slice(i, end + 1));
    i = end + 1;
  }
  return values;
}

/** Finds where a JSON value (starting at the first character read) closes, over text given in pieces. */
class JsonScan {
  /** The index, over all text read, of the closing bracket; -1 until it came. */
  closedAt = -1;
  /** Whether the held text was judged by its first value. */
  decided = false;
  private offset = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;

  /** Reads on; true when the value closed in `s`. */
  read(s: string): boolean {
    if (this.closedAt >= 0) return false;
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (this.escaped) this.escaped = false;
      else if (this.inString) {
        if (c === "\\") this.escaped = true;
        else if (c === '"') this.inString = false;
      } else if (c === '"') this.inString = true;
      else if (c === "{" || c === "[") this.depth++;
      else if ((c === "}" || c === "]") && --this.depth === 0) {
        this.closedAt = this.offset + i;
        this.offset += s.length;
        return true;
      }
    }
    this.offset += s.length;
    return false;
  }
}

/** Whether `body` starts a JSON value that has not closed yet. */
function opensUnclosed(body: string): boolean {
  const first = body.search(/\S/);
  if (first < 0) return false;
  const c = body[first];
  return (c === "{" || c === "[") && closingOf(body, first) < 0;
}

/** The index of the bracket closing the one at `start`, minding strings; -1 when it never closes. */
function closingOf(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/**
 * `[name(key=literal, …), …]`, read without evaluating anything: arguments are keywords whose
 * values are Python literals (strings, numbers, True/False/None, lists, dicts).
 */
export function pythonicCalls(text: string, offered: ReadonlySet<string>): TextCall[] | null {
  const reader = new LiteralReader(text.trim());
  try {
    reader.expect("[");
    const calls: TextCall[] = [];
    while (!reader.take("]")) {
      if (calls.length > 0) reader.expect(",");
      const name = reader.identifier();
      if (!offered.has(name)) return null;
      reader.expect("(");
      const args: Record<string, unknown> = {};
      while (!reader.take(")")) {
        if (Object.keys(args).length > 0) {
          reader.expect(",");
          if (reader.take(")")) break;
        }
        const key = reader.identifier();
        reader.expect("=");
        args[key] = reader.value();
      }
      calls.push({ name, arguments: args });
    }
    return reader.atEnd() && calls.length > 0 ? calls : null;
  } catch {
    return null;
  }
}

class LiteralReader {
  private i = 0;
  constructor(private readonly s: string) {}

  atEnd(): boolean {
    this.space();
    return this.i >= this.s.length;
  }

  take(c: string): boolean {
    this.space();
    if (this.s[this.i] !== c) return false;
    this.i++;
    return true;
  }

  expect(c: string): void {
    if (!this.take(c)) throw new Error(`expected ${c}`);
  }

  identifier(): string {
    this.space();
    const match = /^[A-Za-z_][\w.]*/.exec(this.s.slice(this.i, this.i + 200));
    if (!match) throw new Error("expected a name");
    this.i += match[0].length;
    return match[0];
  }

  value(): unknown {
    this.space();
    const c = this.s[this.i];
    if (c === '"' || c === "'") return this.string(c);
    if (c === "[") return this.list("]");
    if (c === "(") return this.list(")");
    if (c === "{") return this.dict();
    const word = /^(?:True|False|None|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)/.exec(this.s.slice(this.i, this.i + 40));
    if (!word) throw new Error("expected a literal");
    this.i += word[0].length;
    if (word[0] === "True") return true;
    if (word[0] === "False") return false;
    if (word[0] === "None") return null;
    return Number(word[0]);
  }

  private list(close: string): unknown[] {
    this.i++;
    const items: unknown[] = [];
    while (!this.take(close)) {
      if (items.length > 0) {
        this.expect(",");
        if (this.take(close)) break;
      }
      items.push(this.value());
    }
    return items;
  }

  private dict(): Record<string, unknown> {
    this.i++;
    const result: Record<string, unknown> = {};
    let first = true;
    while (!this.take("}")) {
      if (!first) {
        this.expect(",");
        if (this.take("}")) break;
      }
      first = false;
      const key = this.value();
      if (typeof key !== "string") throw new Error("a dict key must be a string");
      this.expect(":");
      result[key] = this.value();
    }
    return result;
  }

  private string(quote: string): string {
    let out = "";
    for (this.i++; this.i < this.s.length; this.i++) {
      const c = this.s[this.i];
      if (c === quote) {
        this.i++;
        return out;
      }
      if (c === "\\") {
        const next = this.s[++this.i];
        out += next === "n" ? "\n" : next === "t" ? "\t" : next === "r" ? "\r" : (next ?? "");
      } else out += c;
    }
    throw new Error("a string is not closed");
  }

  private space(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i] ?? "")) this.i++;
  }
}
