import type { ServerWebSocket } from "bun";
import { type AnyMessage, frameText, messageStream, parseFrame, type Stream } from "./stream.ts";

/** Above this many bytes queued on the socket, sending waits until it drains below LOW_WATER. */
const HIGH_WATER = 4 * 1024 * 1024;
const LOW_WATER = 1024 * 1024;

/**
 * JSON-RPC over the server end of a Bun WebSocket (the control socket's IPC), one message a text
 * frame. Bun hands the server's frames to the handlers of `Bun.serve({ websocket })`, so the
 * server calls `receive` from its `message` handler, `drained` from `drain` and `end` from `close`.
 * Sending never drops: above HIGH_WATER queued bytes (where Bun would start dropping past its
 * backpressure limit) the next send waits for the drain. Bun's `maxPayloadLength` caps what comes in.
 */
export function serverWebSocketTransport(ws: ServerWebSocket<unknown>): {
  stream: Stream;
  receive(data: string | Buffer): void;
  drained(): void;
  end(): void;
} {
  let open = true;
  // Every send waiting for the drain, in order: the stream's writes and the transport's own replies
  // to frames that were not JSON may wait at once.
  const waiting: (() => void)[] = [];
  const wakeAll = () => {
    for (const wake of waiting.splice(0)) wake();
  };
  const send = async (message: AnyMessage) => {
    while (open && ws.getBufferedAmount() > HIGH_WATER) {
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
      });
    }
    if (open) ws.send(frameText(message));
  };
  const { stream, deliver, end } = messageStream(send);
  return {
    stream,
    receive(data) {
      const message = parseFrame(typeof data === "string" ? data : data.toString("utf8"), (m) => void send(m));
      if (message !== undefined) deliver(message);
    },
    drained() {
      if (ws.getBufferedAmount() > LOW_WATER) return;
      wakeAll();
    },
    end() {
      open = false;
      wakeAll();
      end();
    },
  };
}
