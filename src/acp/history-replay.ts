import { pathToFileURL } from "node:url";
import type { EngineEvent } from "../bus/index.ts";
import { parseStored, type StoredMessage } from "../engine/records.ts";
import type { Session } from "../engine/session.ts";
import type { Db } from "../store/db.ts";
import { messagePage } from "../store/messages.ts";
import { toolByName } from "../tools/index.ts";
import { todoTool } from "../tools/todo.ts";
import { storedDenial } from "../transcript/denials.ts";
import { storedToolTitle } from "../transcript/tool-titles.ts";
import { sessionUpdates, type Update } from "./updates.ts";

/** Stored messages read at a time: a history of any length is replayed in bounded memory. */
const PAGE = 200;

/**
 * session/load's replay: the session's stored conversation sent as the session/updates the live
 * stream sent, oldest first. The messages are read from the store a page at a time and each is
 * turned back into the engine events it came from, which go through the live mapping (updates.ts,
 * tool-calls.ts); only the person's own messages, which the editor showed itself, are said here
 * (user_message_chunk). Each page's updates are written before the next page is read.
 */
export async function replayHistory(db: Db, session: Session, send: (update: Update) => Promise<void>): Promise<void> {
  let written: Promise<void>[] = [];
  const updates = sessionUpdates(session, (update) => written.push(send(update)));
  const events = new StoredEvents({ root: session.root, cwd: session.cwd });
  const play = (event: EngineEvent | Update) => ("sessionUpdate" in event ? written.push(send(event)) : updates.event(event));
  try {
    for (let after = 0; ; ) {
      const rows = messagePage(db, session.id, after, PAGE);
      for (const row of rows) {
        after = row.seq;
        const message = parseStored(row);
        if (message) for (const event of events.of(message)) play(event);
      }
      if (rows.length < PAGE) break;
      await Promise.all(written);
      written = [];
    }
    for (const event of events.end()) play(event);
    await Promise.all(written);
  } finally {
    updates.tools.close();
  }
}

/**
 * Stored messages turned back into the engine's events, in the order they came live: a model call
 * (step) with its reasoning, its text and its tool calls announced; each call's start and end (its
 * diffs as kept with its result) or its denial; a turn's end, which fails the calls that never ran.
 */
class StoredEvents {
  private turnId = "";
  private step = 0;
  private open = false;
  /** The arguments of the last model call's tool calls, for a result stored without its own. */
  private calls = new Map<string, unknown>();

  constructor(private readonly where: { root: string; cwd: string }) {}

  of(message: StoredMessage): (EngineEvent | Update)[] {
    if (message.role === "user") return this.user(message);
    if (message.role === "assistant") return this.assistant(message);
    return this.tool(message.body);
  }

  /** The end of the last turn. */
  end(): EngineEvent[] {
    if (!this.open) return [];
    this.open = false;
    return [{ type: "task", state: "end", turnId: this.turnId }];
  }

  private user(message: Extract<StoredMessage, { role: "user" }>): (EngineEvent | Update)[] {
    // A steering message is taken within the turn: it does not end it.
    const out: (EngineEvent | Update)[] = message.body.steer ? [] : this.end();
    this.turnId = message.turnId ?? this.turnId;
    this.step = 0;
    this.open = true;
    out.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: message.body.display ?? message.body.text } });
    for (const a of message.body.attachments ?? []) {
      out.push({ sessionUpdate: "user_message_chunk", content: { type: "resource_link", uri: pathToFileURL(a.path).href, name: a.name, mimeType: a.mimeType, size: a.size } });
    }
    return out;
  }

  private assistant(message: Extract<StoredMessage, { role: "assistant" }>): EngineEvent[] {
    this.open = true;
    const { body } = message;
    const out: EngineEvent[] = [{ type: "step", turnId: this.turnId, step: ++this.step }];
    if (body.reasoning) out.push({ type: "reasoning", delta: body.reasoning });
    if (body.text) out.push({ type: "text", delta: body.text });
    this.calls = new Map(body.toolCalls.map((call) => [call.id, parseArgs(call.arguments)]));
    body.toolCalls.forEach((call, index) => out.push({ type: "tool_call_delta", callId: call.id, index, name: call.name, argumentsDelta: call.arguments }));
    return out;
  }

  private tool(body: Extract<StoredMessage, { role: "tool" }>["body"]): EngineEvent[] {
    const args = body.args ?? this.calls.get(body.callId) ?? {};
    const tool = toolByName(body.name);
    // The arguments read once, for the title and the locations alike.
    const input = tool?.schema.safeParse(args);
    const title = (input?.success && this.titled(() => tool?.title(input.data, this.where))) || storedToolTitle(body.name, args, this.where);
    const kind = tool?.kind ?? "other";
    const denial = storedDenial(body);
    if (denial) return [{ type: "tool_denied", callId: body.callId, name: body.name, title, kind, reason: denial.reason, ...(denial.feedback ? { feedback: denial.feedback } : {}) }];
    const out: EngineEvent[] = [{ type: "tool_start", callId: body.callId, name: body.name, args, title, kind, locations: input?.success ? this.locations(() => tool?.paths?.(input.data, this.where)) : [] }];
    const todos = body.name === todoTool.name && !body.isError ? todoTool.schema.safeParse(args).data?.todos : undefined;
    if (todos) out.push({ type: "todos", todos });
    out.push({ type: "tool_end", callId: body.callId, name: body.name, output: body.output, isError: body.isError, ...(body.diffs ? { diffs: body.diffs } : {}) });
    return out;
  }

  /** A call's title as its tool gives it, or null when the tool cannot say it. */
  private titled(title: () => string | undefined): string | null {
    try {
      return title() ?? null;
    } catch {
      return null;
    }
  }

  /** The files a call touched, as its tool names them (tool_start's locations). */
  private locations(paths: () => string[] | undefined): { path: string }[] {
    try {
      return (paths() ?? []).map((path) => ({ path }));
    } catch {
      return [];
    }
  }
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
