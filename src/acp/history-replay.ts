import type { EngineEvent } from "../bus/index.ts";
import type { StoredMessage, ToolResultRecord } from "../engine/records.ts";
import { storedTokens } from "../engine/tokens.ts";
import type { Session } from "../engine/session.ts";
import type { Db } from "../store/db.ts";
import { messagePage } from "../store/messages.ts";
import { toolByName } from "../tools/index.ts";
import type { Tool } from "../tools/tool.ts";
import { todoTool } from "../tools/todo.ts";
import { storedDenial } from "../transcript/denials.ts";
import { storedToolTitle } from "../transcript/tool-titles.ts";
import { blockWeight, replayedBlocks } from "./replayed-blocks.ts";
import { replayRow } from "./replay-rows.ts";
import { sessionUpdates, type Update } from "./updates.ts";

/** Stored messages read at a time: a history of any length is replayed in bounded memory. */
const PAGE = 200;
/**
 * The first page is smaller: its updates leave once it is read and turned into them, and the
 * editor has the start of the history to show while the rest is (a page of 200 held the first
 * update back by the time of 200 rows).
 */
const FIRST_PAGE = 24;
/** The most of the person's images and resources held unwritten: past it the replay waits for the editor to take them. */
const MAX_UNWRITTEN = 16 * 1024 * 1024;

/** A task call's helpers as its result keeps them: the feed holds them for the call's end, as it did live. */
type Helpers = { helpersOf: string; helpers: NonNullable<ToolResultRecord["helpers"]> };

type Played = EngineEvent | Update | Helpers;

/**
 * session/load's replay: the session's stored conversation sent as the session/updates the live
 * stream sent, oldest first. The messages are read from the store a page at a time and each is
 * turned back into the engine events it came from, which go through the live mapping (updates.ts,
 * tool-calls.ts); only the person's own messages, which the editor showed itself, are said here
 * (user_message_chunk). Each page's updates are written before the next page is read. Returns the
 * estimated tokens of what the model is sent of it now (after the summary, if it was compacted).
 */
export async function replayHistory(db: Db, session: Session, send: (update: Update) => Promise<void>, summarySeq: number | null = null): Promise<number> {
  let written: Promise<void>[] = [];
  const updates = sessionUpdates(session, (update) => written.push(send(update)));
  const events = new StoredEvents({ root: session.root, cwd: session.cwd });
  let unwritten = 0;
  const play = (event: Played) => {
    if ("sessionUpdate" in event) {
      if (event.sessionUpdate === "user_message_chunk") unwritten += blockWeight(event.content);
      written.push(send(event));
    }
    else if ("helpersOf" in event) updates.tools.helpersOf(event.helpersOf, event.helpers);
    else updates.event(event);
  };
  let tokens = 0;
  try {
    for (let after = 0, page = FIRST_PAGE; ; page = PAGE) {
      const rows = messagePage(db, session.id, after, page);
      for (const row of rows) {
        after = row.seq;
        const message = replayRow(row);
        if (!message) continue;
        if (message.seq > (summarySeq ?? 0)) tokens += storedTokens(message);
        for (const event of events.of(message)) play(event);
        if (unwritten > MAX_UNWRITTEN) {
          await Promise.all(written);
          written = [];
          unwritten = 0;
        }
      }
      if (rows.length < page) break;
      await Promise.all(written);
      written = [];
      // The page's updates are handed to the transport, which writes them at the next turn of the
      // event loop: taken here, they leave before the next page is read, not with it.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    for (const event of events.end()) play(event);
    await Promise.all(written);
    return tokens;
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
  /** The ids the replay has shown, and the last model call's ids as shown (shownId). */
  private readonly shown = new Set<string>();
  private shownIds = new Map<string, string>();

  constructor(private readonly where: { root: string; cwd: string }) {}

  of(message: StoredMessage): Played[] {
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
    // Sent with more than text (a mention, an image, a resource): each block as the editor showed it.
    if (message.body.blocks) {
      for (const content of replayedBlocks(message.body.blocks)) out.push({ sessionUpdate: "user_message_chunk", content });
      return out;
    }
    out.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: message.body.display ?? message.body.text } });
    for (const a of message.body.attachments ?? []) {
      out.push({ sessionUpdate: "user_message_chunk", content: { type: "resource_link", uri: Bun.pathToFileURL(a.path).href, name: a.name, mimeType: a.mimeType, size: a.size } });
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
    this.shownIds = new Map(body.toolCalls.map((call) => [call.id, this.shownId(call.id)]));
    body.toolCalls.forEach((call, index) => out.push({ type: "tool_call_delta", callId: this.shownIds.get(call.id) ?? call.id, index, name: call.name, argumentsDelta: call.arguments }));
    return out;
  }

  /**
   * The id a stored call is shown with: its own, unless an earlier call of the session was shown
   * with it (an older lembas kept a server's `call_0` of every step as it came), then one made from
   * it, so that a client keeping cards by id keeps each call's card.
   */
  private shownId(id: string): string {
    let shown = id;
    for (let n = 2; this.shown.has(shown); n++) shown = `${id}~${n}`;
    this.shown.add(shown);
    return shown;
  }

  private tool(stored: Extract<StoredMessage, { role: "tool" }>["body"]): (EngineEvent | Helpers)[] {
    const args = stored.args ?? this.calls.get(stored.callId) ?? {};
    const body = { ...stored, callId: this.shownIds.get(stored.callId) ?? stored.callId };
    const tool = toolByName(body.name);
    // A result keeps the title it was shown with (an MCP tool's names its server): only an older one's is made again.
    const { title, locations } = body.title !== undefined ? { title: body.title, locations: (body.paths ?? []).map((path) => ({ path })) } : this.shownAgain(tool, body.name, args);
    const kind = body.kind ?? tool?.kind ?? "other";
    const denial = storedDenial(body);
    if (denial) return [{ type: "tool_denied", callId: body.callId, name: body.name, title, kind, reason: denial.reason, ...(denial.feedback ? { feedback: denial.feedback } : {}) }];
    const out: (EngineEvent | Helpers)[] = [{ type: "tool_start", callId: body.callId, name: body.name, args, title, kind, locations }];
    const todos = body.name === todoTool.name && !body.isError ? todoTool.schema.safeParse(args).data?.todos : undefined;
    if (todos) out.push({ type: "todos", todos });
    if (body.helpers?.length) out.push({ helpersOf: body.callId, helpers: body.helpers });
    out.push({ type: "tool_end", callId: body.callId, name: body.name, output: body.output, isError: body.isError, ...(body.diffs ? { diffs: body.diffs } : {}) });
    return out;
  }

  /** The title and locations of a call stored without them, as its tool gives them (the arguments read once for both). */
  private shownAgain(tool: Tool | undefined, name: string, args: unknown): { title: string; locations: { path: string }[] } {
    if (!tool) {
      const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
      return { title: mcp ? `${mcp[1]}: ${mcp[2]}` : storedToolTitle(name, args, this.where), locations: [] };
    }
    const input = tool.schema.safeParse(args);
    if (!input.success) return { title: storedToolTitle(name, args, this.where), locations: [] };
    return {
      title: this.titled(() => tool.title(input.data, this.where)) ?? storedToolTitle(name, args, this.where),
      locations: this.locations(() => tool.paths?.(input.data, this.where)),
    };
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
