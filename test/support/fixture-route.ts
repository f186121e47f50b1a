/**
 * A route of the scripted model (test/support/model.ts mounts it) that replays recorded streams
 * of an API other than chat completions (Messages, Responses), records every request it gets, and
 * fails on demand. messages-server.ts and responses-server.ts are its two users.
 *
 * ```ts
 * const messages = messagesRoute([thinkingThenTool, textOnly]);
 * const model = await startModel({ routes: [messages] });
 * // … then: (await messages.waitForRequests(2))[1].body
 * ```
 */
import { DEFAULT_WAIT_MS, Recorder, sleep } from "./recorder.ts";

/** Something the scripted model answers at a path it does not know itself. */
export interface ModelRoute {
  handles(method: string, path: string): boolean;
  handle(req: Request): Promise<Response>;
}

/**
 * One answer: a recorded stream, sent byte for byte (`cutAfter`: only its first that many
 * characters, then the connection is reset; `hang`: its headers and nothing more), or an HTTP
 * error (`retryAfter` in seconds). `times`: answer so this many times (default once).
 */
export type Replay =
  | { body: string; cutAfter?: number; hang?: true; times?: number; match?: (body: RecordedBody) => boolean }
  | { status: number; error: string; retryAfter?: number; times?: number; match?: (body: RecordedBody) => boolean };

/** A request's JSON body, as sent. */
export type RecordedBody = Record<string, unknown>;

/** A request the route received. */
export interface RouteRequest {
  body: RecordedBody;
  headers: Headers;
}

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache" };
const encoder = new TextEncoder();
/** How long a cut stream lingers after its last bytes, so they reach the client first. */
const CUT_LINGER_MS = 20;

/** Replays answers at every POST whose path ends in `suffix`, in the order queued; `fallback` when none is left. */
export class FixtureRoute implements ModelRoute {
  private readonly queue: Replay[] = [];
  private readonly recorder = new Recorder<RouteRequest>();

  constructor(
    private readonly suffix: string,
    replays: Replay[],
    private readonly fallback: Replay | null = null,
    private readonly check: (body: RecordedBody) => Response | null = () => null,
  ) {
    this.push(...replays);
  }

  get requests(): RouteRequest[] {
    return this.recorder.items;
  }

  push(...replays: Replay[]): void {
    this.queue.push(...replays);
  }

  pending(): number {
    return this.queue.length;
  }

  waitForRequests(n: number, timeoutMs = DEFAULT_WAIT_MS): Promise<RouteRequest[]> {
    return this.recorder.waitForCount(n, { timeoutMs, what: `${n} request(s) to ${this.suffix}` });
  }

  handles(method: string, path: string): boolean {
    return method === "POST" && path.endsWith(this.suffix);
  }

  async handle(req: Request): Promise<Response> {
    let body: RecordedBody = {};
    try {
      body = JSON.parse(await req.text()) as RecordedBody;
    } catch {
      return Response.json({ type: "error", error: { type: "invalid_request_error", message: "the body is not JSON" } }, { status: 400 });
    }
    this.recorder.push({ body, headers: req.headers });
    // A body the real API refuses gets its refusal, before any scripted answer is used up.
    const refused = this.check(body);
    if (refused) return refused;
    const replay = this.take(body);
    if (replay === null) return Response.json({ type: "error", error: { type: "invalid_request_error", message: `nothing scripted for ${this.suffix}` } }, { status: 500 });
    if ("status" in replay) {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (replay.retryAfter !== undefined) headers["retry-after"] = String(replay.retryAfter);
      return new Response(replay.error, { status: replay.status, headers });
    }
    if (replay.hang) return new Response(hanging(), { headers: SSE_HEADERS });
    return new Response(streamOf(replay.body, replay.cutAfter, req.signal), { headers: SSE_HEADERS });
  }

  private take(body: RecordedBody): Replay | null {
    const index = this.queue.findIndex((r) => !r.match || r.match(body));
    const replay = index >= 0 ? this.queue[index] : undefined;
    if (!replay) return this.fallback;
    const left = (replay.times ?? 1) - 1;
    if (left <= 0) this.queue.splice(index, 1);
    else this.queue[index] = { ...replay, times: left };
    return replay;
  }
}

function hanging(): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(": scripted hang\n\n"));
    },
  });
}

/** The body in one write, or its first `cutAfter` characters and then a reset connection. */
function streamOf(body: string, cutAfter: number | undefined, signal: AbortSignal): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      if (cutAfter === undefined) {
        controller.enqueue(encoder.encode(body));
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(body.slice(0, cutAfter)));
      await sleep(CUT_LINGER_MS, signal);
      // Erroring with no reason resets the connection without logging anything.
      if (!signal.aborted) controller.error(undefined);
    },
  });
}
