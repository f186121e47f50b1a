import { z } from "zod";
import { modeSchema } from "../config/mode-effort.ts";
import { lazily } from "../lazy.ts";

/** The most of a resource's text kept in a ShownBlock (UTF-16 code units): a session's records stay bounded by what the model was sent. */
export const MAX_SHOWN_TEXT = 128 * 1024;

/**
 * What the store keeps of a conversation, one row a message. These are the engine's own records
 * (richer than what the model is sent): history, reopening a session and undo read them. Their
 * schemas are made the first time a stored row is read back: the engine writes typed objects, and
 * a fresh one-shot reads none before its first request.
 */
const recordSchemas = lazily(() => {
  /**
   * One of the person's blocks as their editor showed it (an ACP content block), kept for the
   * replay: text; a mention's link; an image by the path of its saved copy; an embedded resource's
   * text, up to MAX_SHOWN_TEXT (past it the block is kept as a link to its file).
   */
  const ShownBlock = z.discriminatedUnion("type", [
    z.object({ type: z.literal("text"), text: z.string() }),
    z.object({ type: z.literal("resource_link"), uri: z.string(), name: z.string(), mimeType: z.string().optional(), size: z.number().optional(), title: z.string().optional() }),
    z.object({ type: z.literal("image"), mimeType: z.string(), path: z.string(), uri: z.string().optional() }),
    z.object({ type: z.literal("resource"), uri: z.string(), text: z.string(), mimeType: z.string().optional() }),
  ]);
  const UserRecord = z.object({
    /** What the model is sent. */
    text: z.string(),
    /** What the person typed, when it differs (a command's name instead of its body). */
    display: z.string().optional(),
    attachments: z.array(z.object({ name: z.string(), mimeType: z.string(), size: z.number(), path: z.string() })).optional(),
    /** A steering message taken in mid-turn. */
    steer: z.boolean().optional(),
    /** The mode the turn it starts ran in: the model is told it where it changed (mode-notes.ts). */
    mode: modeSchema().optional(),
    /** The person's blocks as their editor showed them, where there was more than text: session/load replays them so. */
    blocks: z.array(ShownBlock).optional(),
  });
  const ToolCallRecord = z.object({
    id: z.string(),
    name: z.string(),
    arguments: z.string(),
    /** A provider's own fields on the call (Gemini's extra_content with its thought_signature), sent back as they came. */
    extraContent: z.record(z.string(), z.unknown()).optional(),
  });
  const AssistantRecord = z.object({
    text: z.string(),
    reasoning: z.string(),
    toolCalls: z.array(ToolCallRecord),
    /** The stream was cut or cancelled before the model finished. */
    partial: z.boolean().optional(),
    /** What the provider needs back within the turn (model/events.ts CarryItem), in the order it came. */
    carry: z.array(z.object({ api: z.enum(["messages", "responses"]), item: z.record(z.string(), z.unknown()) })).optional(),
  });
  const FileDiffRecord = z.object({ path: z.string(), oldText: z.string().nullable(), newText: z.string() });
  const ToolResultRecord = z.object({
    callId: z.string(),
    name: z.string(),
    output: z.string(),
    isError: z.boolean(),
    args: z.unknown().optional(),
    images: z.array(z.object({ mimeType: z.string(), data: z.string(), path: z.string() })).optional(),
    /** The diffs a client was shown when the call ended (kept-diffs.ts): an editor's session/load shows them again. */
    diffs: z.array(FileDiffRecord).optional(),
    /** The call's title and kind as clients were shown them live ("notes: search …" for an MCP tool): session/load shows them again. */
    title: z.string().optional(),
    kind: z.string().optional(),
    /** The files the call touched (a client's locations), when it named any. */
    paths: z.array(z.string()).optional(),
    /** A helper's calls (the task tool's), as their ends were shown live, with the diffs of what they changed. */
    helpers: z.array(z.object({ title: z.string(), status: z.string(), diffs: z.array(FileDiffRecord).optional() })).optional(),
  });
  return { user: UserRecord, toolCall: ToolCallRecord, assistant: AssistantRecord, tool: ToolResultRecord, shownBlock: ShownBlock };
});
type RecordSchemas = ReturnType<typeof recordSchemas>;
export type UserRecord = z.infer<RecordSchemas["user"]>;
export type ToolCallRecord = z.infer<RecordSchemas["toolCall"]>;
export type AssistantRecord = z.infer<RecordSchemas["assistant"]>;
export type ToolResultRecord = z.infer<RecordSchemas["tool"]>;
export type ShownBlock = z.infer<RecordSchemas["shownBlock"]>;

export type StoredMessage =
  | { seq: number; turnId: string | null; role: "user"; body: UserRecord }
  | { seq: number; turnId: string | null; role: "assistant"; body: AssistantRecord }
  | { seq: number; turnId: string | null; role: "tool"; body: ToolResultRecord };

/**
 * Reads a stored row back; a row that no longer parses is skipped rather than breaking the session:
 * one of the wrong shape, as one whose body is not JSON at all (the store gives its body as undefined).
 */
export function parseStored(row: { seq: number; role: string; body: unknown; turnId: string | null }): StoredMessage | null {
  const { seq, turnId } = row;
  if (row.role === "user") {
    const body = recordSchemas().user.safeParse(row.body);
    return body.success ? { seq, turnId, role: "user", body: body.data } : null;
  }
  if (row.role === "assistant") {
    const body = recordSchemas().assistant.safeParse(row.body);
    return body.success ? { seq, turnId, role: "assistant", body: body.data } : null;
  }
  if (row.role === "tool") {
    const body = recordSchemas().tool.safeParse(row.body);
    return body.success ? { seq, turnId, role: "tool", body: body.data } : null;
  }
  return null;
}

/** A message about to be stored: a StoredMessage but for its seq, which the store gives it. */
export type NewMessage = StoredMessage extends infer M ? (M extends StoredMessage ? Omit<M, "seq"> : never) : never;
