import { type AnyMessage, messageStream, parseFrame, type Stream } from "./stream.ts";

/** Above this many bytes queued on the socket, sending waits until it drains below LOW_WATER. */
const HIGH_WATER = 4 * 1024 * 1024;
const LOW_WATER = 1024 * 1024;

/**
 * JSON-RPC over a WebSocket, one message a text frame (the link). Sending never drops: when the
 * socket has more than HIGH_WATER bytes queued (a slow instance), the next send waits for it to
 * drain, which holds back whoever sends (the SDK's write queue), so memory stays bounded.
 */
export function webSocketTransport(ws: WebSocket): { stream: Stream; answered(): Promise<void>; end(): void } {
  const send = async (message: AnyMessage) => {
    while (ws.readyState === WebSocket.OPEN && ws.bufferedAmount > HIGH_WATER) {
      await drained(ws);
    }
    if (ws.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify(message));
  };
  const { stream, deliver, end, answered } = messageStream(send);
  ws.addEventListener("message", (event) => {
    const text = typeof event.data === "string" ? event.data : new TextDecoder().decode(event.data as ArrayBuffer);
    const message = parseFrame(text, (m) => void send(m));
    if (message !== undefined) deliver(message);
  });
  ws.addEventListener("close", () => end());
  return { stream, answered, end };
}

async function drained(ws: WebSocket): Promise<void> {
  while (ws.readyState === WebSocket.OPEN && ws.bufferedAmount > LOW_WATER) await Bun.sleep(2);
}
