/**
 * An editor's connection to the service's `GET /v1/acp` (src/service/editors.ts) spoken by hand
 * over the control socket, so that the test can stop reading it: then the service's writes to it
 * back up, and a session/load's replay waits on the drain (rpc/server-websocket.ts) for as long as
 * the test likes — a hold in the real program, not a race. Frames are text, one message each.
 */
import { randomBytes } from "node:crypto";
import net from "node:net";
import { join } from "node:path";
import { connectablePath, IPC } from "../../src/app/ipc-socket.ts";
import { editorQuery } from "../../src/service/editor-protocol.ts";
import { VERSION } from "../../src/version.ts";
import type { Sandbox } from "./run.ts";

type Message = { id?: unknown; method?: unknown; params?: { sessionId?: unknown }; result?: unknown; error?: unknown };

export type StalledEditor = {
  /** Every message the service sent, in order (the welcome first), up to where reading stopped. */
  messages: Message[];
  send(message: object): void;
  /** Stops reading the socket once a message that matches has been read; resolves then. */
  stopAt(match: (message: Message) => boolean): Promise<void>;
  /** Reads again. */
  resume(): void;
  /** The answer to request `id`, once read. */
  answer(id: unknown, timeoutMs?: number): Promise<Message>;
  close(): void;
};

export async function stalledEditor(box: Sandbox): Promise<StalledEditor> {
  const socket = net.connect(connectablePath(join(box.stateDir, "service.sock")));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  const query = editorQuery(IPC, VERSION, join(box.configDir, "config.yaml"));
  socket.write(`GET ${query} HTTP/1.1\r\nHost: lembas\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  const messages: Message[] = [];
  let buffered = Buffer.alloc(0);
  let upgraded = false;
  let stop: { match: (message: Message) => boolean; done: () => void } | null = null;
  let stopped = false;
  const wakes: (() => void)[] = [];

  const read = () => {
    if (!upgraded) {
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      if (!buffered.subarray(0, end).toString().startsWith("HTTP/1.1 101")) throw new Error(`the service did not take the editor: ${buffered.toString()}`);
      buffered = buffered.subarray(end + 4);
      upgraded = true;
    }
    while (!stopped) {
      const frame = serverFrame(buffered);
      if (!frame) return;
      buffered = buffered.subarray(frame.size);
      if (frame.opcode !== 1) continue;
      const message = JSON.parse(frame.payload.toString("utf8")) as Message;
      messages.push(message);
      for (const wake of wakes.splice(0)) wake();
      if (stop?.match(message)) {
        stopped = true;
        socket.pause();
        stop.done();
        stop = null;
      }
    }
  };
  socket.on("data", (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    read();
  });

  return {
    messages,
    send(message) {
      socket.write(clientFrame(JSON.stringify(message)));
    },
    stopAt(match) {
      return new Promise<void>((done) => {
        stop = { match, done };
        read();
      });
    },
    resume() {
      stopped = false;
      socket.resume();
      read();
    },
    async answer(id, timeoutMs = 15_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find((m) => m.id === id && m.method === undefined);
        if (found) return found;
        if (Date.now() > end) throw new Error(`no answer to ${String(id)}; the last message: ${JSON.stringify(messages.at(-1))?.slice(0, 300)}`);
        await new Promise<void>((resolve) => {
          wakes.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
    close() {
      socket.destroy();
    },
  };
}

/** One unmasked frame of the server's at the start of `data`, or null while it is not all there. */
function serverFrame(data: Buffer): { opcode: number; payload: Buffer; size: number } | null {
  if (data.length < 2) return null;
  const opcode = (data[0] ?? 0) & 0x0f;
  let length = (data[1] ?? 0) & 0x7f;
  let head = 2;
  if (length === 126) {
    if (data.length < 4) return null;
    length = data.readUInt16BE(2);
    head = 4;
  } else if (length === 127) {
    if (data.length < 10) return null;
    length = Number(data.readBigUInt64BE(2));
    head = 10;
  }
  if (data.length < head + length) return null;
  return { opcode, payload: data.subarray(head, head + length), size: head + length };
}

/** A final, masked text frame, as a client sends. */
function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text, "utf8");
  const mask = randomBytes(4);
  const length = payload.length < 126 ? Buffer.from([0x80 | payload.length]) : payload.length < 65536 ? Buffer.from([0x80 | 126, payload.length >> 8, payload.length & 0xff]) : Buffer.concat([Buffer.from([0x80 | 127]), bigLength(payload.length)]);
  const masked = Buffer.alloc(payload.length);
  for (let i = 0; i < payload.length; i++) masked[i] = (payload[i] ?? 0) ^ (mask[i % 4] ?? 0);
  return Buffer.concat([Buffer.from([0x81]), length, mask, masked]);
}

function bigLength(length: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(BigInt(length));
  return out;
}
