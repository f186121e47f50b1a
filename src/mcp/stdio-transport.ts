import type { Subprocess } from "bun";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../errors.ts";
import { killGroup, leftInGroup } from "../tools/process-group.ts";
import { watchGroup } from "../tools/watchdog.ts";
import { StderrTail } from "../stderr-tail.ts";

/** How long a server has to exit after SIGTERM before its process group is killed. */
const KILL_GRACE_MS = 1_000;
/** How long what is left of a stopped server's group has to go once it was killed. */
const GONE_MS = 1_000;

/** Every server process group still running, so that none outlives us (see killAllOnExit). */
const running = new Set<number>();
let exitHookSet = false;

export type StdioOptions = {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** The argv actually spawned for `[command, ...args]` in `cwd` (the tools' sandbox around it); none: as it is. */
  wrap?: (argv: string[], cwd: string) => string[];
  /** The longest line (one JSON-RPC message) read, in bytes; a longer one is dropped and reported. */
  maxMessageBytes: number;
  /** A line that is not a JSON-RPC message, or one too long: told, not fatal. */
  onMalformed(problem: string): void;
};

/**
 * MCP's stdio transport over Bun.spawn: one JSON-RPC message a line on the child's stdin and
 * stdout. Unlike the SDK's, the child leads its own process group, so stopping it stops whatever
 * it started; its stderr is kept (the last lines) for error messages and never passed on; and a
 * bad or huge line is reported without stopping the stream.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly stderr = new StderrTail();
  private proc: Subprocess<"pipe", "pipe", "pipe"> | undefined;
  /** How the process ended; `ours`: after close asked it to (its exit then says nothing of the server). */
  private exit: { code: number | null; signal: string | number | null; ours: boolean } | undefined;
  private closed: Promise<void> | undefined;
  private stderrEnded: Promise<void> = Promise.resolve();

  constructor(private readonly options: StdioOptions) {}

  /** The server's pid while it runs. */
  get pid(): number | undefined {
    return this.exit ? undefined : this.proc?.pid;
  }

  /** Whether close was called: an exit from then on is ours, not the server's. */
  get closing(): boolean {
    return this.closed !== undefined;
  }

  /**
   * How the process ended of itself, in words ("exited with code 1"); undefined while it runs, or
   * when close stopped it — unless EVENAFTERCLOSE: a write that found the pipe broken says the
   * server was gone first, whatever close came after.
   */
  exitDescription(opts: { evenAfterClose?: boolean } = {}): string | undefined {
    if (!this.exit || (this.exit.ours && !opts.evenAfterClose)) return undefined;
    return this.exit.signal ? `was killed by ${this.exit.signal}` : `exited with code ${this.exit.code}`;
  }

  async start(): Promise<void> {
    const { command, args, env, cwd, wrap } = this.options;
    const argv = wrap ? wrap([command, ...args], cwd ?? process.cwd()) : [command, ...args];
    try {
      this.proc = Bun.spawn(argv, { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe", detached: true });
    } catch (error) {
      throw new Error(`could not run ${JSON.stringify(command)}: ${errorMessage(error)}`);
    }
    const proc = this.proc;
    running.add(proc.pid);
    killAllOnExit();
    // A SIGKILL of lembas runs no exit hook: the watchdog stops the server's group then.
    const release = watchGroup(proc.pid);
    void this.readLines(proc.stdout);
    this.stderrEnded = this.readStderr(proc.stderr).catch(() => undefined);
    void proc.exited.then(() => {
      running.delete(proc.pid);
      this.exit = { code: proc.exitCode, signal: proc.signalCode, ours: this.closing };
      // The group may outlive its leader: whatever it started goes with it.
      killGroup(proc.pid, "SIGKILL");
      release();
      this.onclose?.();
    });
  }

  /** Resolves once all the server wrote to stderr is read, or after `ms`. */
  async stderrRead(ms: number): Promise<void> {
    await Promise.race([this.stderrEnded, Bun.sleep(ms)]);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const proc = this.proc;
    if (!proc || this.exit) throw new Error("the server is not running");
    try {
      proc.stdin.write(`${JSON.stringify(message)}\n`);
      await proc.stdin.flush();
    } catch (error) {
      throw new Error(`could not write to the server: ${errorMessage(error)}`);
    }
  }

  /** Stops the server: SIGTERM to its process group, SIGKILL after a grace; resolves once it and its group are gone. */
  close(): Promise<void> {
    // A second close (the SDK's client closes its transport, then the connection does) waits for the same end.
    this.closed ??= this.stop();
    return this.closed;
  }

  private async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    try {
      proc.stdin.end();
    } catch {
      // Already closed: the process is going anyway.
    }
    killGroup(proc.pid, "SIGTERM");
    const timer = setTimeout(() => killGroup(proc.pid, "SIGKILL"), KILL_GRACE_MS);
    await proc.exited;
    clearTimeout(timer);
    // What the leader leaves (a sandbox's PID 1 and the server in it, its children) is killed with
    // the group as it exits; they take a moment to go, and close resolves once they have.
    killGroup(proc.pid, "SIGKILL");
    await leftInGroup(proc.pid, GONE_MS);
  }

  private async readLines(stdout: ReadableStream<Uint8Array>): Promise<void> {
    const max = this.options.maxMessageBytes;
    let chunks: Buffer[] = [];
    let size = 0;
    let skipping = false;
    for await (const chunk of stdout) {
      let data = Buffer.from(chunk);
      for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10)) {
        const piece = data.subarray(0, nl);
        data = data.subarray(nl + 1);
        if (!skipping) this.line(Buffer.concat([...chunks, piece]).toString("utf8"));
        chunks = [];
        size = 0;
        skipping = false;
      }
      if (skipping || data.length === 0) continue;
      size += data.length;
      if (size > max) {
        chunks = [];
        size = 0;
        skipping = true;
        this.options.onMalformed(`sent a message larger than ${Math.round(max / 1_000_000)} MB, which was dropped`);
        continue;
      }
      chunks.push(data);
    }
  }

  private line(text: string): void {
    const line = text.replace(/\r$/, "");
    if (!line.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.options.onMalformed(`sent a line that is not JSON: ${preview(line)}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      this.options.onMalformed(`sent a line that is not a JSON-RPC message: ${preview(line)}`);
      return;
    }
    this.onmessage?.(parsed.data);
  }

  private async readStderr(stderr: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stderr) this.stderr.add(decoder.decode(chunk, { stream: true }));
  }
}

function preview(line: string): string {
  return JSON.stringify(line.length > 120 ? `${line.slice(0, 120)}…` : line);
}

/** On our exit, whatever servers still run are killed with their groups (synchronously: exit waits for nothing). */
function killAllOnExit(): void {
  if (exitHookSet) return;
  exitHookSet = true;
  process.on("exit", () => {
    for (const pid of running) killGroup(pid, "SIGKILL");
  });
}
