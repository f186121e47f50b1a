import { isOneOf, MODES } from "../config/key-values.ts";
import type { StoredMessage } from "../engine/records.ts";
import type { MessageRow } from "../store/messages.ts";

/**
 * A session's stored rows read back by hand, as engine/records.ts's schemas read them, for the
 * resumed history drawn before zod is loaded (tui/resumed-history.ts: zod and the schemas were a
 * good part of what that frame waited for). A row is taken by hand only when every field it has is
 * one the schema takes as it is; any other row (an attachment, an editor's blocks, a field that is
 * not what the schema wants) makes this say null, and the schemas read them all, as the engine does.
 */
export function storedByHand(rows: readonly MessageRow[]): StoredMessage[] | null {
  const out: StoredMessage[] = [];
  for (const row of rows) {
    const message = rowByHand(row);
    if (message === undefined) return null;
    if (message) out.push(message);
  }
  return out;
}

/** The row as a StoredMessage; null for a role the schemas skip; undefined when the schema must say. */
function rowByHand(row: MessageRow): StoredMessage | null | undefined {
  const { seq, turnId, body } = row;
  if (row.role !== "user" && row.role !== "assistant" && row.role !== "tool") return null;
  if (!isRecord(body)) return undefined;
  if (row.role === "user") {
    const plain = named(body, USER) && isString(body.text) && optional(body.display, isString) && optional(body.steer, isBoolean) && optional(body.mode, isMode);
    // Attachments and an editor's blocks are the schema's to read.
    return plain && body.attachments === undefined && body.blocks === undefined ? { seq, turnId, role: "user", body: body as StoredUser } : undefined;
  }
  if (row.role === "assistant") {
    const taken =
      named(body, ASSISTANT) && isString(body.text) && isString(body.reasoning) && isArrayOf(body.toolCalls, isToolCall) && optional(body.partial, isBoolean) && optional(body.carry, (carry) => isArrayOf(carry, isCarry));
    return taken ? { seq, turnId, role: "assistant", body: body as StoredAssistant } : undefined;
  }
  const taken =
    named(body, TOOL) &&
    isString(body.callId) &&
    isString(body.name) &&
    isString(body.output) &&
    isBoolean(body.isError) &&
    body.images === undefined &&
    optional(body.diffs, (diffs) => isArrayOf(diffs, isFileDiff)) &&
    optional(body.title, isString) &&
    optional(body.kind, isString) &&
    optional(body.paths, (paths) => isArrayOf(paths, isString)) &&
    optional(body.helpers, (helpers) => isArrayOf(helpers, isHelper));
  return taken ? { seq, turnId, role: "tool", body: body as StoredTool } : undefined;
}

type StoredUser = Extract<StoredMessage, { role: "user" }>["body"];
type StoredAssistant = Extract<StoredMessage, { role: "assistant" }>["body"];
type StoredTool = Extract<StoredMessage, { role: "tool" }>["body"];

/**
 * The fields each record's schema names: the schemas leave any other out of what they read, so a
 * row with one is theirs to read (it is not what the engine wrote).
 */
const USER = new Set(["text", "display", "attachments", "steer", "mode", "blocks"]);
const ASSISTANT = new Set(["text", "reasoning", "toolCalls", "partial", "carry"]);
const TOOL = new Set(["callId", "name", "output", "isError", "args", "images", "diffs", "title", "kind", "paths", "helpers"]);
const CALL = new Set(["id", "name", "arguments", "extraContent"]);
const CARRY = new Set(["api", "item"]);
const DIFF = new Set(["path", "oldText", "newText"]);
const HELPER = new Set(["title", "status", "diffs"]);

/** Whether every field of `record` is one of `names`. */
function named(record: Record<string, unknown>, names: ReadonlySet<string>): boolean {
  for (const key in record) if (!names.has(key)) return false;
  return true;
}

const isString = (value: unknown): value is string => typeof value === "string";
const isBoolean = (value: unknown): value is boolean => typeof value === "boolean";
const isMode = (value: unknown): boolean => isString(value) && isOneOf(MODES, value);
const optional = (value: unknown, check: (value: unknown) => boolean): boolean => value === undefined || check(value);
const isArrayOf = (value: unknown, check: (item: unknown) => boolean): boolean => Array.isArray(value) && value.every(check);

/** A JSON object (what JSON.parse gives: a plain object, not an array). */
function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A provider's own fields on a call are the schema's to read. */
const isToolCall = (call: unknown): boolean => isRecord(call) && named(call, CALL) && isString(call.id) && isString(call.name) && isString(call.arguments) && call.extraContent === undefined;
const isCarry = (item: unknown): boolean => isRecord(item) && named(item, CARRY) && (item.api === "messages" || item.api === "responses") && isRecord(item.item);
const isFileDiff = (diff: unknown): boolean => isRecord(diff) && named(diff, DIFF) && isString(diff.path) && (diff.oldText === null || isString(diff.oldText)) && isString(diff.newText);
const isHelper = (helper: unknown): boolean =>
  isRecord(helper) && named(helper, HELPER) && isString(helper.title) && isString(helper.status) && optional(helper.diffs, (diffs) => isArrayOf(diffs, isFileDiff));
