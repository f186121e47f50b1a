/**
 * Reading the values of tool calls a model wrote as text (text-toolcalls.ts finds where they
 * are): JSON call objects, Python-literal calls, parameters written as text and typed by schema.
 */

export type TextCall = { name: string; arguments: Record<string, unknown> };

/** A `<tool_call>` body: JSON, or Qwen3-Coder's `<function=…>` form. */
export function tagCalls(body: string, offered: ReadonlySet<string>, typeOf: (tool: string, parameter: string) => string | undefined): TextCall[] | null {
  const trimmed = body.trim();
  if (!trimmed.startsWith(XML_FUNCTION)) return jsonCalls(body, offered);
  const match = XML_CALL.exec(trimmed);
  const name = match?.[1]?.trim() ?? "";
  if (!match || !offered.has(name)) return null;
  const args: Record<string, unknown> = {};
  let rest = (match[2] ?? "").trim();
  while (rest) {
    const param = XML_PARAMETER.exec(rest);
    if (!param) return null;
    const key = param[1]?.trim() ?? "";
    args[key] = typedValue(trimNewline(param[2] ?? ""), typeOf(name, key));
    rest = rest.slice(param[0].length).trim();
  }
  return [{ name, arguments: args }];
}

/** One or more JSON call objects (or arrays of them), separated by whitespace, `;` or `,`. */
export function jsonCalls(body: string, offered: ReadonlySet<string>): TextCall[] | null {
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
      const call = callOf(item, offered);
      if (!call) return null;
      calls.push(call);
    }
  }
  return calls.length > 0 ? calls : null;
}

/** After `[TOOL_CALLS]`: a JSON list (before v11), or `name{…}` / `name[ARGS]{…}` parts, each after its own marker. */
export function mistralCalls(body: string, offered: ReadonlySet<string>): TextCall[] | null {
  const trimmed = body.trim();
  if (trimmed.startsWith("[") || trimmed.startsWith("{")) return jsonCalls(trimmed, offered);
  const calls: TextCall[] = [];
  for (const part of trimmed.split(MISTRAL)) {
    const match = MISTRAL_NAMED.exec(part.trim());
    if (!match) return null;
    const name = match[1] ?? "";
    const args = objectOf(match[2] ?? "");
    if (!offered.has(name) || !args) return null;
    calls.push({ name, arguments: args });
  }
  return calls.length > 0 ? calls : null;
}

const MISTRAL = "[TOOL_CALLS]";
const MISTRAL_NAMED = /^([A-Za-z_][\w.-]*)\s*(?:\[CALL_ID\][A-Za-z0-9]+)?\s*(?:\[ARGS\])?\s*(\{[\s\S]*\})$/;
const XML_FUNCTION = "<function=";
const XML_CALL = /^<function=([^>\n]+)>([\s\S]*)<\/function>$/;
const XML_PARAMETER = /^<parameter=([^>\n]+)>([\s\S]*?)<\/parameter>/;

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
export function parameterType(schema: Record<string, unknown> | undefined, parameter: string): string | undefined {
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
export class JsonScan {
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
export function opensUnclosed(body: string): boolean {
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
