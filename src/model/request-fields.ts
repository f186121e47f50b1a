import type { Endpoint } from "./endpoint.ts";
import type { ModelError } from "./errors.ts";
import { bodyJson } from "./body-json.ts";

/**
 * The request fields lembas sends that a server may refuse with a 400, and how the request goes
 * without one: dropped, or (the two names of the reply limit) sent under the other name.
 * - `stream_options`: older vLLM, LM Studio and proxies ("Extra inputs are not permitted");
 * - `reasoning_effort`: models without reasoning on OpenAI ("Unrecognized request argument"),
 *   Groq ("`reasoning_effort` is not supported with this model"), Mistral (422, extra inputs);
 * - `parallel_tool_calls`: servers that take tools but not that switch;
 * - `max_tokens` ↔ `max_completion_tokens`: OpenAI's reasoning models refuse max_tokens ("Use
 *   'max_completion_tokens' instead"), older servers know only max_tokens;
 * - `reasoning_content` on assistant messages (sent back for DeepSeek's and Kimi's thinking
 *   modes) and `extra_content` on tool calls (Gemini's thought_signature), which a strict server
 *   may not take.
 */
const DROPPABLE = ["stream_options", "reasoning_effort", "parallel_tool_calls", "max_tokens", "max_completion_tokens", "reasoning_content", "extra_content"] as const;
export type DroppableField = (typeof DROPPABLE)[number];

const RENAMED: Partial<Record<DroppableField, DroppableField>> = { max_tokens: "max_completion_tokens", max_completion_tokens: "max_tokens" };

/** Words a server uses when it refuses a field rather than a value. */
const REFUSES = /unrecogni[sz]ed|unsupported|not supported|unknown|extra (inputs?|fields?)|not permitted|not allowed|unexpected|does not support|invalid (request )?(argument|parameter|field)s?\b/i;

/**
 * What is known of the fields each connection's model refuses. The seam for the store of what
 * servers told: something that keeps it across processes implements this and is passed as
 * StreamOptions.rejectedFields. The model registry keeps one, in memory, for every call its models
 * make (ResolvedModel.rejectedFields).
 */
export interface RejectedFields {
  get(connection: string, model: string): ReadonlySet<string>;
  add(connection: string, model: string, field: string): void;
}

/** The in-memory memo: what a server refused is not asked again while it is kept. */
export class MemoryRejectedFields implements RejectedFields {
  private readonly known = new Map<string, Set<string>>();
  private static readonly none: ReadonlySet<string> = new Set();

  get(connection: string, model: string): ReadonlySet<string> {
    return this.known.get(key(connection, model)) ?? MemoryRejectedFields.none;
  }

  add(connection: string, model: string, field: string): void {
    const k = key(connection, model);
    let set = this.known.get(k);
    if (!set) this.known.set(k, (set = new Set()));
    set.add(field);
  }
}

const key = (connection: string, model: string) => `${connection}\u0000${model}`;

/** The connection a memo entry belongs to: its name and where it points (a renamed URL is another server). */
export function connectionKey(endpoint: Endpoint): string {
  return `${endpoint.name} ${endpoint.baseUrl}`;
}

/** A request body as sent, with the droppable fields it holds. */
export type ShapedBody = { text: string; fields: ReadonlySet<DroppableField> };

/**
 * The body to send: `body` without the fields the server refused and, following the connection's
 * `reasoning` key, reasoning_effort (false: never sent; true: always sent, never dropped).
 */
export function shapeBody(body: Record<string, unknown>, refused: ReadonlySet<string>, reasoning: boolean | undefined): ShapedBody {
  const out: Record<string, unknown> = { ...body };
  if (reasoning === false) delete out.reasoning_effort;
  for (const field of refused) {
    if (!(field in out) || (field === "reasoning_effort" && reasoning === true)) continue;
    const other = RENAMED[field as DroppableField];
    if (other !== undefined && !(other in out) && !refused.has(other)) out[other] = out[field];
    delete out[field];
  }
  if (Array.isArray(out.messages) && (refused.has("reasoning_content") || refused.has("extra_content"))) {
    out.messages = out.messages.map((m: unknown) => withoutMessageFields(m, refused));
  }
  return { text: bodyJson(out), fields: heldFields(out) };
}

function heldFields(body: Record<string, unknown>): Set<DroppableField> {
  const fields = new Set<DroppableField>();
  for (const field of DROPPABLE) if (field in body) fields.add(field);
  if (!Array.isArray(body.messages)) return fields;
  for (const m of body.messages as Record<string, unknown>[]) {
    if (typeof m.reasoning_content === "string") fields.add("reasoning_content");
    if (Array.isArray(m.tool_calls) && m.tool_calls.some((c: Record<string, unknown>) => c.extra_content !== undefined)) fields.add("extra_content");
  }
  return fields;
}

function withoutMessageFields(message: unknown, refused: ReadonlySet<string>): unknown {
  if (typeof message !== "object" || message === null) return message;
  const m = { ...(message as Record<string, unknown>) };
  if (refused.has("reasoning_content")) delete m.reasoning_content;
  if (refused.has("extra_content") && Array.isArray(m.tool_calls)) {
    m.tool_calls = m.tool_calls.map((c: Record<string, unknown>) => {
      const { extra_content: _, ...rest } = c;
      return rest;
    });
  }
  return m;
}

/**
 * The field a 400 (or 422) says the server does not take, when it names one the body held and
 * in words of refusal; null for any other failure. reasoning_effort is never given up on a
 * connection whose `reasoning` is true.
 */
export function refusedField(error: ModelError, held: ReadonlySet<DroppableField>, reasoning: boolean | undefined): DroppableField | null {
  if (error.kind !== "bad_request" || (error.status !== 400 && error.status !== 422)) return null;
  if (!REFUSES.test(error.message)) return null;
  for (const field of held) {
    if (field === "reasoning_effort" && reasoning === true) continue;
    if (new RegExp(`(^|[^a-z_])${field}([^a-z_]|$)`).test(error.message)) return field;
  }
  return null;
}
