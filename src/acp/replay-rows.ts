import { MODES } from "../config/key-values.ts";
import { parseStored, type StoredMessage } from "../engine/records.ts";

/**
 * A stored row read back for session/load's replay. The engine's records (records.ts) are checked
 * here by hand first: zod's first parses of them were half the CPU of a 200-turn replay, which
 * reads hundreds of rows once. A row the check accepts is one the records' schemas accept (every
 * field they name has their type; test/acp/replay-rows.test.ts holds the two together); any other
 * row is left to parseStored, which says whether it still parses.
 */
export function replayRow(row: { seq: number; role: string; body: unknown; turnId: string | null }): StoredMessage | null {
  const { body } = row;
  if (isRecord(body)) {
    if (row.role === "user" && isUser(body)) return { seq: row.seq, turnId: row.turnId, role: "user", body };
    if (row.role === "assistant" && isAssistant(body)) return { seq: row.seq, turnId: row.turnId, role: "assistant", body };
    if (row.role === "tool" && isToolResult(body)) return { seq: row.seq, turnId: row.turnId, role: "tool", body };
  }
  return parseStored(row);
}

type Fields = Record<string, unknown>;
type Body<R extends StoredMessage["role"]> = Extract<StoredMessage, { role: R }>["body"];

const MODE_NAMES: ReadonlySet<unknown> = new Set(MODES);

function isRecord(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
const isString = (value: unknown): value is string => typeof value === "string";
const isBoolean = (value: unknown): value is boolean => typeof value === "boolean";
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const optional = (value: unknown, check: (value: unknown) => boolean) => value === undefined || check(value);
const listOf = (check: (item: Fields) => boolean) => (value: unknown) => Array.isArray(value) && value.every((item) => isRecord(item) && check(item));

const isDiff = (d: Fields) => isString(d.path) && (d.oldText === null || isString(d.oldText)) && isString(d.newText);

function isUser(b: Fields): b is Body<"user"> {
  const attachment = (a: Fields) => isString(a.name) && isString(a.mimeType) && isNumber(a.size) && isString(a.path);
  return (
    isString(b.text) &&
    optional(b.display, isString) &&
    optional(b.attachments, listOf(attachment)) &&
    optional(b.steer, isBoolean) &&
    optional(b.mode, (m) => MODE_NAMES.has(m)) &&
    optional(b.blocks, listOf(isShownBlock))
  );
}

function isShownBlock(b: Fields): boolean {
  if (b.type === "text") return isString(b.text);
  if (b.type === "resource_link") return isString(b.uri) && isString(b.name) && optional(b.mimeType, isString) && optional(b.size, isNumber) && optional(b.title, isString);
  if (b.type === "image") return isString(b.mimeType) && isString(b.path) && optional(b.uri, isString);
  if (b.type === "resource") return isString(b.uri) && isString(b.text) && optional(b.mimeType, isString);
  return false;
}

function isAssistant(b: Fields): b is Body<"assistant"> {
  const call = (c: Fields) => isString(c.id) && isString(c.name) && isString(c.arguments) && optional(c.extraContent, isRecord);
  const carried = (c: Fields) => (c.api === "messages" || c.api === "responses") && isRecord(c.item);
  return isString(b.text) && isString(b.reasoning) && listOf(call)(b.toolCalls) && optional(b.partial, isBoolean) && optional(b.carry, listOf(carried));
}

function isToolResult(b: Fields): b is Body<"tool"> {
  const image = (i: Fields) => isString(i.mimeType) && isString(i.data) && isString(i.path);
  const helper = (h: Fields) => isString(h.title) && isString(h.status) && optional(h.diffs, listOf(isDiff));
  const strings = (value: unknown) => Array.isArray(value) && value.every(isString);
  return (
    isString(b.callId) &&
    isString(b.name) &&
    isString(b.output) &&
    isBoolean(b.isError) &&
    optional(b.images, listOf(image)) &&
    optional(b.diffs, listOf(isDiff)) &&
    optional(b.title, isString) &&
    optional(b.kind, isString) &&
    optional(b.paths, strings) &&
    optional(b.helpers, listOf(helper))
  );
}
