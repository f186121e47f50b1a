import { type AnyMessage, frameText, MAX_MESSAGE_BYTES, messageStream, parseFrame, type Stream } from "./stream.ts";

/** Above this many bytes queued on the socket, sending waits until it drains below LOW_WATER. */
const HIGH_WATER = 4 * 1024 * 1024;
const LOW_WATER = 1024 * 1024;

/** Options of {@link webSocketTransport}. */
export type WebSocketTransportOptions = {
  /** The most an incoming message may be (default MAX_MESSAGE_BYTES). */
  maxMessageBytes?: number;
  /** Told of a message over the limit, before the socket is closed with 1009. */
  onTooBig?: (bytes: number, max: number) => void;
};

/** The close code for a message too big to take (RFC 6455). */
export const TOO_BIG = 1009;

/**
 * JSON-RPC over a WebSocket, one message a text frame (the link). Sending never drops: when the
 * socket has more than HIGH_WATER bytes queued (a slow instance), the next send waits for it to
 * drain, which holds back whoever sends (the dispatcher's write queue), so memory stays bounded.
 * Bun's client takes no cap on what it receives, so a message over the limit is measured, never
 * parsed, and the socket closed with 1009: a peer that sends one is not to be trusted to go on.
 */
export function webSocketTransport(ws: WebSocket, opts: WebSocketTransportOptions = {}): { stream: Stream; answered(): Promise<void>; end(): void } {
  const max = opts.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  let refused = false;
  const send = async (message: AnyMessage) => {
    while (ws.readyState === WebSocket.OPEN && ws.bufferedAmount > HIGH_WATER) {
      await drained(ws);
    }
    if (ws.readyState !== WebSocket.OPEN) return;
    ws.send(frameText(message));
  };
  const { stream, deliver, end, answered } = messageStream(send);
  ws.addEventListener("message", (event) => {
    if (refused) return;
    const bytes = sizeOf(event.data, max);
    if (bytes > max) {
      refused = true;
      opts.onTooBig?.(bytes, max);
      ws.close(TOO_BIG, "message too big");
      return;
    }
    const text = typeof event.data === "string" ? event.data : new TextDecoder().decode(event.data as ArrayBuffer);
    const message = parseFrame(text, (m) => void send(m));
    if (message !== undefined) deliver(message);
  });
  ws.addEventListener("close", () => end());
  return { stream, answered, end };
}

/** A frame's size in bytes, counting a string's UTF-8 only when its length leaves it in doubt. */
function sizeOf(data: unknown, max: number): number {
  if (typeof data === "string") return data.length * 3 <= max ? data.length : Buffer.byteLength(data, "utf8");
  if (data instanceof ArrayBuffer) return data.byteLength;
  if (ArrayBuffer.isView(data)) return data.byteLength;
  return 0;
}

async function drained(ws: WebSocket): Promise<void> {
  while (ws.readyState === WebSocket.OPEN && ws.bufferedAmount > LOW_WATER) await Bun.sleep(2);
}
