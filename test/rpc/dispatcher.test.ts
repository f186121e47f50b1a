import { expect, test } from "bun:test";
import * as sdk from "@agentclientprotocol/sdk";
import { acp } from "../../src/rpc/agent.ts";
import type { AnyMessage, Stream } from "../../src/rpc/stream.ts";

/**
 * Our dispatcher (src/rpc/apps.ts, json-rpc.ts) against the ACP SDK's, which it replaced: the same
 * script of messages sent to an agent built the same way on each, and the same answers back, in
 * the same order — errors, their codes, sentences and data included.
 */
type Outcome = { out: AnyMessage[]; calls: string[]; openAtEnd: string };
type Step = { send: unknown; answers: number };
type Lib = { agent(options?: { name?: string }): unknown };

function pipe(): { stream: Stream; push(message: unknown): void; end(): void; out: AnyMessage[]; waitFor(n: number): Promise<void> } {
  let controller!: ReadableStreamDefaultController<AnyMessage>;
  const out: AnyMessage[] = [];
  let wake: (() => void) | null = null;
  const readable = new ReadableStream<AnyMessage>({ start: (c) => void (controller = c) });
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      out.push(message);
      wake?.();
    },
  });
  return {
    stream: { readable, writable },
    push: (message) => controller.enqueue(message as AnyMessage),
    end: () => controller.close(),
    out,
    async waitFor(n) {
      while (out.length < n) await new Promise<void>((resolve) => (wake = resolve));
    },
  };
}

const abortError = () => Object.assign(new Error("the request was aborted"), { name: "AbortError" });

async function play(lib: Lib, steps: Step[]): Promise<Outcome> {
  const calls: string[] = [];
  const p = pipe();
  // Built alike on both: the handlers see params as parsed, and throw what each case needs.
  type Cx = { params: Record<string, unknown>; signal: AbortSignal; client: { request(method: string, params: unknown): Promise<unknown> } };
  type App = { onRequest(method: string, ...rest: unknown[]): App; onNotification(method: string, ...rest: unknown[]): App; connect(stream: Stream): { client: { request(method: string, params: unknown): Promise<unknown> }; closed: Promise<void> } };
  const app = (lib.agent({ name: "test" }) as App)
    .onRequest("initialize", ({ params }: Cx) => ({ protocolVersion: params.protocolVersion, agentCapabilities: {}, caps: params.clientCapabilities }))
    .onRequest("session/new", ({ params }: Cx) => {
      if (params.cwd === "/error") throw new Error("boom");
      if (params.cwd === "/json") throw new Error('{"why":"json"}');
      if (params.cwd === "/request-error") throw new (lib as typeof sdk).RequestError(-32602, "Invalid params: no", { at: "cwd" });
      return { sessionId: `ses_${params.cwd}`, seen: params };
    })
    .onRequest("session/set_mode", () => undefined)
    .onRequest("session/list", () => undefined)
    .onRequest("session/prompt", async ({ params, signal, client }: Cx) => {
      if (params.sessionId === "wait") {
        return await new Promise((_, reject) => signal.addEventListener("abort", () => reject(abortError()), { once: true }));
      }
      const answer = await client.request("session/request_permission", { sessionId: params.sessionId, toolCall: { toolCallId: "t" }, options: [] });
      return { stopReason: "end_turn", _meta: { answer } };
    })
    .onRequest("_x/custom", { parse: (v: unknown) => ({ v }) }, ({ params }: Cx) => params)
    .onNotification("session/cancel", ({ params }: Cx) => void calls.push(`cancel ${String(params.sessionId)}`));
  const connection = app.connect(p.stream);
  for (const step of steps) {
    p.push(step.send);
    await p.waitFor(step.answers);
  }
  const open = connection.client.request("fs/read_text_file", { sessionId: "s", path: "/a" }).then(
    () => "answered",
    (error: Error) => `rejected: ${error.message}`,
  );
  p.end();
  await connection.closed;
  return { out: p.out, calls, openAtEnd: await open };
}

const req = (id: number | string, method: string, params?: unknown) => ({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
const SCRIPT: Step[] = [
  { send: req(1, "session/new", { cwd: "/p", mcpServers: [] }), answers: 1 },
  { send: req(2, "initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } }), answers: 2 },
  { send: req(3, "session/new", { cwd: "/p", mcpServers: [], unknown: 1, _meta: "not a record" }), answers: 3 },
  { send: req(4, "session/new", { cwd: 3 }), answers: 4 },
  { send: req(5, "session/new", { cwd: "/error", mcpServers: [] }), answers: 5 },
  { send: req(6, "session/new", { cwd: "/json", mcpServers: [] }), answers: 6 },
  { send: req(7, "session/new", { cwd: "/request-error", mcpServers: [] }), answers: 7 },
  { send: req(8, "session/unknown", {}), answers: 8 },
  { send: req(9, "session/set_mode", { sessionId: "s", modeId: "plan" }), answers: 9 },
  { send: req(10, "session/list"), answers: 10 },
  { send: req(11, "_x/custom"), answers: 11 },
  { send: req(12, "session/prompt", { sessionId: "s", prompt: [{ type: "text" }] }), answers: 12 },
  // A request of ours to the client, answered by id.
  { send: req(13, "session/prompt", { sessionId: "s", prompt: [] }), answers: 13 },
  { send: { jsonrpc: "2.0", id: 0, result: { outcome: { outcome: "cancelled" } } }, answers: 14 },
  // $/cancel_request aborts the request's signal: -32800 (once its handler listens: another answer first).
  { send: req("w", "session/prompt", { sessionId: "wait", prompt: [] }), answers: 14 },
  { send: req(14, "session/set_mode", { sessionId: "s", modeId: "ask" }), answers: 15 },
  { send: { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: "w" } }, answers: 16 },
  // Notifications are never answered; an unknown one is dropped.
  { send: { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s" } }, answers: 16 },
  { send: { jsonrpc: "2.0", method: "_x/nobody" }, answers: 16 },
  // Malformed envelopes and batches: -32600 with id null.
  { send: { id: 20, method: "initialize" }, answers: 17 },
  { send: [req(21, "initialize", { protocolVersion: 1 })], answers: 18 },
  { send: "text", answers: 19 },
  { send: req(22, "session/cancel", { sessionId: "s" }), answers: 20 },
];

test("our dispatcher answers a script of requests, notifications, cancellations and bad messages as the ACP SDK did", async () => {
  const theirs = await play(sdk as unknown as Lib, SCRIPT);
  const ours = await play(acp as unknown as Lib, SCRIPT);
  expect(JSON.parse(JSON.stringify(ours))).toEqual(JSON.parse(JSON.stringify(theirs)));
  // The script reaches what it is for (not only the same on both).
  const codes = ours.out.map((m) => ("error" in m && m.error ? m.error.code : 0));
  for (const code of [-32600, -32601, -32602, -32603, -32800]) expect(codes).toContain(code);
  expect(ours.calls).toEqual(["cancel s"]);
  expect(ours.openAtEnd).toBe("rejected: ACP connection closed");
});
