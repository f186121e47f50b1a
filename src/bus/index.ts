import { z } from "zod";

/**
 * The engine's events, one schema each. Every client (ACP, the link, the TUI, `lembas run`) learns
 * what a session does only from these; the engine knows nothing of who listens.
 */

/** The event schemas, made on first use: the engine emits typed objects and never parses its own events. */
function makeEventSchemas() {
  const attachment = z.object({ name: z.string(), mimeType: z.string(), size: z.number() });
  const todo = z.object({
    content: z.string(),
    status: z.enum(["pending", "in_progress", "completed"]),
    priority: z.enum(["high", "medium", "low"]).optional(),
  });
  const stopReason = z.enum(["end_turn", "max_turn_requests", "max_tokens", "cancelled", "refusal"]);
  const diff = z.object({ path: z.string(), oldText: z.string().nullable(), newText: z.string() });

  return {
    /** The session opened (made, or opened from the store), with its settings. */
    session: z.object({ id: z.string(), root: z.string(), cwd: z.string(), title: z.string(), mode: z.string(), model: z.string().nullable(), effort: z.string() }),
    /** A prompt entered the session: text as the person sees it (a command's name, not its body). */
    prompt: z.object({ text: z.string(), turnId: z.string(), attachments: z.array(attachment).optional() }),
    /** A model call begins within a turn (step 1, 2, …). */
    step: z.object({ turnId: z.string(), step: z.number() }),
    /** The session's title was set (by the model after the first prompt, or by a person). */
    title: z.object({ id: z.string(), title: z.string() }),
    /** A piece of the model's answer. */
    text: z.object({ delta: z.string() }),
    /** A piece of the model's reasoning. */
    reasoning: z.object({ delta: z.string() }),
    /** A piece of a tool call as the model streams it. */
    tool_call_delta: z.object({ callId: z.string(), index: z.number(), name: z.string().optional(), argumentsDelta: z.string() }),
    /** Output of a running tool (bash), as it comes. */
    progress: z.object({ callId: z.string(), output: z.string() }),
    /** A tool call starts (after its permission was granted). */
    tool_start: z.object({
      callId: z.string(),
      name: z.string(),
      args: z.unknown(),
      title: z.string(),
      kind: z.string(),
      locations: z.array(z.object({ path: z.string(), line: z.number().optional() })),
    }),
    /** A tool call ended, with what the model sees and what clients may show. */
    tool_end: z.object({
      callId: z.string(),
      name: z.string(),
      output: z.string(),
      isError: z.boolean(),
      diffs: z.array(diff).optional(),
      meta: z.record(z.string(), z.unknown()).optional(),
    }),
    /** A tool call was refused (by the mode, or by the person, with their feedback). */
    tool_denied: z.object({
      callId: z.string(),
      name: z.string(),
      title: z.string(),
      kind: z.string(),
      reason: z.string(),
      feedback: z.string().optional(),
    }),
    /**
     * Token counts the server reported for one model call (model/events.ts Usage: promptTokens
     * counts the cache's tokens too); contextLimit is the model's window.
     */
    usage: z.object({
      promptTokens: z.number(),
      completionTokens: z.number(),
      cacheReadTokens: z.number().optional(),
      cacheWriteTokens: z.number().optional(),
      reasoningTokens: z.number().optional(),
      contextLimit: z.number().optional(),
    }),
    /** Steering messages waiting for the running turn's next step. */
    inbox: z.object({ count: z.number(), texts: z.array(z.string()) }),
    /** Steering messages the model was given at this step. */
    steered: z.object({ texts: z.array(z.string()), ids: z.array(z.string()).optional() }),
    /** A turn starts or ends. Every turn has one, with the client's turn id or one made here. */
    task: z.object({ state: z.enum(["start", "end"]), turnId: z.string(), stopReason: z.enum([...stopReason.options, "error"]).optional() }),
    /** Something the person should know that is not the model's answer (a retry, a fallback). */
    notice: z.object({
      message: z.string(),
      level: z.enum(["info", "warn"]),
      /** A model request sent again: which retry of how many, and why (the message says it all; a terminal updates one line with these). */
      retry: z.object({ attempt: z.number(), retries: z.number(), reason: z.string() }).optional(),
    }),
    /** The todo list, whole, after every change. */
    todos: z.object({ todos: z.array(todo) }),
    /** The history was summarised: the model sees the summary instead of what came before. */
    compacted: z.object({ summary: z.string(), auto: z.boolean() }),
    /** A tool call made by a helper (the task tool's call `parentCallId`); once it completed, the diffs of what it changed. */
    sub_tool: z.object({ parentCallId: z.string(), callId: z.string(), name: z.string(), title: z.string(), status: z.string(), diffs: z.array(diff).optional() }),
    /** The session's mode changed. */
    mode: z.object({ mode: z.string() }),
    /** The session's model or effort changed (instance/connection are filled in by whoever knows the links). */
    model: z.object({ ref: z.string().nullable(), effort: z.string(), connection: z.string().nullable() }),
    /** A setting changed through the settings tool or a command. */
    setting: z.object({ key: z.string(), value: z.unknown() }),
    /** A turn failed (the model unreachable, …): a sentence a person can act on. */
    error: z.object({ message: z.string(), kind: z.string().optional(), turnId: z.string().optional() }),
    /** A turn finished and its answer is final; stopReason "error" when it failed (the error event says why). */
    done: z.object({ turnId: z.string(), stopReason: z.enum([...stopReason.options, "error"]), unsent: z.array(z.string()).optional() }),
  } as const;
}

let made: ReturnType<typeof makeEventSchemas> | undefined;

/** Every event's schema by type, for whoever checks events from outside (a client, a test). */
export function eventSchemas(): ReturnType<typeof makeEventSchemas> {
  made ??= makeEventSchemas();
  return made;
}

type EventSchemas = ReturnType<typeof makeEventSchemas>;
export type EventType = keyof EventSchemas;

/** One event: its type and its fields. */
export type EngineEvent = { [K in EventType]: { type: K } & z.infer<EventSchemas[K]> }[EventType];
export type EventOf<K extends EventType> = Extract<EngineEvent, { type: K }>;

export type Listener = (event: EngineEvent, sessionId: string) => void;

/**
 * One emitter per session. Listeners run synchronously in the order they subscribed; one that
 * throws is reported and does not stop the others, nor the engine.
 */
export class SessionBus {
  private listeners = new Set<Listener>();

  constructor(readonly sessionId: string) {}

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: EngineEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event, this.sessionId);
      } catch (error) {
        console.error(`lembas: a listener of session ${this.sessionId} failed on ${event.type}:`, error);
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}
