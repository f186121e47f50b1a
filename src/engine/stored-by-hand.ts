import { isOneOf, MODES } from "../config/key-values.ts";
import type { StoredMessage } from "./records.ts";

/**
 * A stored row read back by hand, as records.ts's schemas read it, without zod: its first parses of
 * the records were half the CPU of a 200-turn session/load (acp/replay-rows.ts), and zod and the
 * schemas a good part of what a resumed terminal's first frame waited for (tui/history-rows.ts). A
 * row is taken by hand only when every field it has, nested ones too, is one the schemas name with
 * the type they take (they leave any other field out of what they read, so such a row is theirs).
 * Returns the message; null for a role the schemas skip; undefined when the schemas must say.
 */
export function rowByHand(row: { seq: number; role: string; body: unknown; turnId: string | null }): StoredMessage | null | undefined {
  const { seq, turnId, body } = row;
  if (row.role !== "user" && row.role !== "assistant" && row.role !== "tool") return null;
  // A body the store could not read as JSON (store/messages.ts): every schema refuses it.
  if (body === undefined) return null;
  if (!isRecord(body)) return undefined;
  if (row.role === "user") return isUser(body) ? { seq, turnId, role: "user", body: body as StoredUser } : undefined;
  if (row.role === "assistant") return isAssistant(body) ? { seq, turnId, role: "assistant", body: body as StoredAssistant } : undefined;
  return isTool(body) ? { seq, turnId, role: "tool", body: body as StoredTool } : undefined;
}

type StoredUser = Extract<StoredMessage, { role: "user" }>["body"];
type StoredAssistant = Extract<StoredMessage, { role: "assistant" }>["body"];
type StoredTool = Extract<StoredMessage, { role: "tool" }>["body"];
type Fields = Record<string, unknown>;

/** The fields each record's schema names. */
const USER = new Set(["text", "display", "attachments", "steer", "mode", "blocks"]);
const ATTACHMENT = new Set(["name", "mimeType", "size", "path"]);
const BLOCK = {
  text: new Set(["type", "text"]),
  resource_link: new Set(["type", "uri", "name", "mimeType", "size", "title"]),
  image: new Set(["type", "mimeType", "path", "uri"]),
  resource: new Set(["type", "uri", "text", "mimeType"]),
};
const ASSISTANT = new Set(["text", "reasoning", "toolCalls", "partial", "carry"]);
const CALL = new Set(["id", "name", "arguments", "extraContent"]);
const CARRY = new Set(["api", "item"]);
const TOOL = new Set(["callId", "name", "output", "isError", "args", "images", "diffs", "title", "kind", "paths", "helpers"]);
const IMAGE = new Set(["mimeType", "data", "path"]);
const DIFF = new Set(["path", "oldText", "newText"]);
const HELPER = new Set(["title", "status", "diffs"]);

/** Whether every field of `record` is one of `names`. */
function named(record: Fields, names: ReadonlySet<string>): boolean {
  for (const key in record) if (!names.has(key)) return false;
  return true;
}

/** A JSON object (what JSON.parse gives: a plain object, not an array). */
function isRecord(value: unknown): value is Fields {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const isString = (value: unknown): value is string => typeof value === "string";
const isBoolean = (value: unknown): value is boolean => typeof value === "boolean";
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const optional = (value: unknown, check: (value: unknown) => boolean): boolean => value === undefined || check(value);
/** A list of JSON objects, each with only the fields NAMES and passing CHECK. */
const listOf = (names: ReadonlySet<string> | null, check: (item: Fields) => boolean) => (value: unknown) =>
  Array.isArray(value) && value.every((item) => isRecord(item) && (names === null || named(item, names)) && check(item));

const isDiff = (d: Fields) => isString(d.path) && (d.oldText === null || isString(d.oldText)) && isString(d.newText);

function isUser(b: Fields): boolean {
  const attachment = (a: Fields) => isString(a.name) && isString(a.mimeType) && isNumber(a.size) && isString(a.path);
  return (
    named(b, USER) &&
    isString(b.text) &&
    optional(b.display, isString) &&
    optional(b.attachments, listOf(ATTACHMENT, attachment)) &&
    optional(b.steer, isBoolean) &&
    optional(b.mode, (m) => isString(m) && isOneOf(MODES, m)) &&
    optional(b.blocks, listOf(null, isShownBlock))
  );
}

function isShownBlock(b: Fields): boolean {
  if (b.type === "text") return named(b, BLOCK.text) && isString(b.text);
  if (b.type === "resource_link") {
    return named(b, BLOCK.resource_link) && isString(b.uri) && isString(b.name) && optional(b.mimeType, isString) && optional(b.size, isNumber) && optional(b.title, isString);
  }
  if (b.type === "image") return named(b, BLOCK.image) && isString(b.mimeType) && isString(b.path) && optional(b.uri, isString);
  if (b.type === "resource") return named(b, BLOCK.resource) && isString(b.uri) && isString(b.text) && optional(b.mimeType, isString);
  return false;
}

function isAssistant(b: Fields): boolean {
  const call = (c: Fields) => isString(c.id) && isString(c.name) && isString(c.arguments) && optional(c.extraContent, isRecord);
  const carried = (c: Fields) => (c.api === "messages" || c.api === "responses") && isRecord(c.item);
  return named(b, ASSISTANT) && isString(b.text) && isString(b.reasoning) && listOf(CALL, call)(b.toolCalls) && optional(b.partial, isBoolean) && optional(b.carry, listOf(CARRY, carried));
}

function isTool(b: Fields): boolean {
  const image = (i: Fields) => isString(i.mimeType) && isString(i.data) && isString(i.path);
  const helper = (h: Fields) => isString(h.title) && isString(h.status) && optional(h.diffs, listOf(DIFF, isDiff));
  const strings = (value: unknown) => Array.isArray(value) && value.every(isString);
  return (
    named(b, TOOL) &&
    isString(b.callId) &&
    isString(b.name) &&
    isString(b.output) &&
    isBoolean(b.isError) &&
    optional(b.images, listOf(IMAGE, image)) &&
    optional(b.diffs, listOf(DIFF, isDiff)) &&
    optional(b.title, isString) &&
    optional(b.kind, isString) &&
    optional(b.paths, strings) &&
    optional(b.helpers, listOf(HELPER, helper))
  );
}
