import type { Subprocess } from "bun";
import { FrameReader, frame } from "./framing.ts";

type Pending = { resolve(value: unknown): void; reject(error: Error): void; timer: ReturnType<typeof setTimeout> };

/** What a connection tells its owner: a notification came, or the server is of no more use (and why). */
export type ConnectionEvents = {
  notification(method: string, params: unknown): void;
  broken(why: string): void;
};

/** A request the server did not answer in time, or answered with an error. */
export class LspRequestError extends Error {}

/**
 * JSON-RPC with one language server over its stdin and stdout. Every request has a deadline; the
 * server's own requests are answered (configuration with nothing set, the rest with null), so a
 * server that waits on its client is never left waiting. A server that exits or writes what is not
 * LSP's framing breaks the connection: every pending request fails, and `broken` says why once.
 */
export class Connection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closed: string | null = null;

  constructor(
    private readonly proc: Subprocess<"pipe", "pipe", "pipe">,
    private readonly events: ConnectionEvents,
  ) {
    void this.read();
    void proc.exited.then((code) => this.break(`it exited (${code})`));
  }

  get alive(): boolean {
    return this.closed === null;
  }

  request(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    if (this.closed !== null) return Promise.reject(new LspRequestError(`the server is stopped: ${this.closed}`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new LspRequestError(`${method} had no answer in ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    if (this.closed === null) this.send({ jsonrpc: "2.0", method, params });
  }

  /** Stops the server: shutdown and exit where it still answers, then its process, whatever it does. */
  async stop(graceMs = 1_000): Promise<void> {
    if (this.closed === null) {
      await this.request("shutdown", null, graceMs).catch(() => {});
      this.notify("exit", null);
    }
    this.break("it was stopped");
    const ended = await Promise.race([this.proc.exited.then(() => true), Bun.sleep(graceMs).then(() => false)]);
    if (!ended) this.proc.kill("SIGKILL");
  }

  /** Ends the server's process now, whatever it is doing (this process is exiting). */
  kill(): void {
    this.proc.kill("SIGKILL");
  }

  private send(message: unknown): void {
    try {
      this.proc.stdin.write(frame(message));
      void this.proc.stdin.flush();
    } catch (error) {
      this.break(`its input closed (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  private async read(): Promise<void> {
    const reader = new FrameReader();
    try {
      for await (const chunk of this.proc.stdout) {
        if (this.closed !== null) return;
        for (const message of reader.push(chunk)) this.receive(message);
      }
    } catch (error) {
      this.break(error instanceof Error ? error.message : String(error));
      this.proc.kill("SIGKILL");
    }
  }

  private receive(message: unknown): void {
    if (typeof message !== "object" || message === null) throw new Error("it sent a message that is not a JSON object");
    const m = message as { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: { message?: unknown } };
    if (typeof m.method === "string") {
      if (m.id === undefined) this.events.notification(m.method, m.params);
      else this.send({ jsonrpc: "2.0", id: m.id, result: answerTo(m.method, m.params) });
      return;
    }
    if (typeof m.id !== "number") return;
    const waiting = this.pending.get(m.id);
    if (!waiting) return;
    this.pending.delete(m.id);
    clearTimeout(waiting.timer);
    if (m.error) waiting.reject(new LspRequestError(`the server answered with an error: ${String(m.error.message ?? "no message")}`));
    else waiting.resolve(m.result ?? null);
  }

  private break(why: string): void {
    if (this.closed !== null) return;
    this.closed = why;
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(new LspRequestError(`the server is stopped: ${why}`));
      this.pending.delete(id);
    }
    this.events.broken(why);
  }
}

/** What lembas answers a server's own request: no settings of its own, nothing else to say. */
function answerTo(method: string, params: unknown): unknown {
  if (method === "workspace/configuration") {
    const items = (params as { items?: unknown[] } | null)?.items;
    return Array.isArray(items) ? items.map(() => null) : [];
  }
  return null;
}
