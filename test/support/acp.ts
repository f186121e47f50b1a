import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { type ScriptedModel, startModel } from "./model.ts";
import { LEMBAS, type Sandbox, sandbox } from "./run.ts";

/** Every line the agent wrote to stdout, raw, so tests can check nothing else ever went there. */
export type StdioAgent = {
  box: Sandbox;
  project: string;
  model: ScriptedModel;
  proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  /** The SDK's client side, connected to the agent's stdin/stdout. */
  agent: acp.ClientContext;
  connection: acp.ClientConnection;
  updates: acp.SessionNotification[];
  stdoutLines: string[];
  stderr(): string;
  /** How the client answers session/request_permission (default: allow once). */
  onPermission: (request: acp.RequestPermissionRequest) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>;
  permissionRequests: acp.RequestPermissionRequest[];
  /** The fs/read_text_file and fs/write_text_file requests the client got (only with `fs`), in order. */
  fsRequests: FsRequest[];
  /** Sends a raw line to the agent's stdin (bad-input tests). */
  sendRaw(line: string): void;
  /** Waits for a stdout line that matches. */
  waitForLine(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Waits for a session/update the SDK's client has handed over (a stdout line is seen before the SDK dispatches it). */
  waitForUpdate(match: (update: acp.SessionNotification) => boolean, timeoutMs?: number): Promise<acp.SessionNotification>;
  close(): Promise<void>;
};

/**
 * `lembas serve --stdio` spawned for real in a sandbox whose config points at a scripted model,
 * driven through the ACP SDK's client side. stdout is teed: the SDK reads it, and the test keeps
 * every line.
 */
export async function startStdioAgent(
  opts: {
    config?: string;
    model?: ScriptedModel;
    cmd?: string[];
    /** Another's sandbox (a device's, whose service may run), with its project and config: kept at close. */
    device?: { box: Sandbox; project: string };
    env?: Record<string, string>;
    /**
     * The client's own files, as an editor offers them: its handlers for fs/read_text_file and
     * fs/write_text_file (the test's initialize must offer clientCapabilities.fs: editorFsParams).
     */
    fs?: EditorFsHandlers;
  } = {},
): Promise<StdioAgent> {
  const box = opts.device?.box ?? sandbox();
  const project = opts.device?.project ?? join(box.dir, "project");
  mkdirSync(project, { recursive: true });
  const model = opts.model ?? (await startModel());
  mkdirSync(box.configDir, { recursive: true });
  if (!opts.device) writeFileSync(join(box.configDir, "config.yaml"), opts.config ?? `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n`);
  const proc = Bun.spawn(opts.cmd ?? [...LEMBAS, "serve", "--stdio"], {
    cwd: project,
    env: { ...box.env, ...opts.env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdoutLines: string[] = [];
  let stderrText = "";
  void (async () => {
    for await (const chunk of proc.stderr) stderrText += new TextDecoder().decode(chunk);
  })();
  const [forSdk, forLines] = proc.stdout.tee();
  void (async () => {
    const decoder = new TextDecoder();
    let rest = "";
    for await (const chunk of forLines) {
      rest += decoder.decode(chunk, { stream: true });
      const lines = rest.split("\n");
      rest = lines.pop() ?? "";
      stdoutLines.push(...lines.filter(Boolean));
    }
  })();
  const input = new WritableStream<Uint8Array>({
    async write(chunk) {
      proc.stdin.write(chunk);
      await proc.stdin.flush();
    },
  });
  const updates: acp.SessionNotification[] = [];
  const permissionRequests: acp.RequestPermissionRequest[] = [];
  const state = {
    onPermission: (_: acp.RequestPermissionRequest): acp.RequestPermissionResponse => ({ outcome: { outcome: "selected", optionId: "once" } }),
  };
  const fsRequests: FsRequest[] = [];
  let client = acp.client({ name: "test" });
  const fs = opts.fs;
  if (fs?.read) {
    const read = fs.read;
    client = client.onRequest("fs/read_text_file", async ({ params, signal }) => {
      fsRequests.push({ method: "fs/read_text_file", params });
      return read(params, signal);
    });
  }
  if (fs?.write) {
    const write = fs.write;
    client = client.onRequest("fs/write_text_file", async ({ params, signal }) => {
      fsRequests.push({ method: "fs/write_text_file", params });
      return write(params, signal);
    });
  }
  const connection = client
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
    })
    .onRequest("session/request_permission", async ({ params }) => {
      permissionRequests.push(params);
      return state.onPermission(params);
    })
    .connect(acp.ndJsonStream(input, forSdk));
  const agent: StdioAgent = {
    box,
    project,
    model,
    proc,
    agent: connection.agent,
    connection,
    updates,
    stdoutLines,
    stderr: () => stderrText,
    get onPermission() {
      return state.onPermission;
    },
    set onPermission(fn) {
      state.onPermission = fn;
    },
    permissionRequests,
    fsRequests,
    sendRaw(line) {
      proc.stdin.write(`${line}\n`);
      void proc.stdin.flush();
    },
    async waitForLine(match, timeoutMs = 5000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const found = stdoutLines.find(match);
        if (found) return found;
        if (Date.now() > end) throw new Error(`no such stdout line; got:\n${stdoutLines.slice(-5).join("\n")}`);
        await Bun.sleep(10);
      }
    },
    async waitForUpdate(match, timeoutMs = 5000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const found = updates.find(match);
        if (found) return found;
        if (Date.now() > end) throw new Error(`no such session/update; got ${updates.length}, the last: ${JSON.stringify(updates.at(-1))}`);
        await Bun.sleep(10);
      }
    },
    async close() {
      connection.close();
      try {
        proc.stdin.end();
      } catch {
        // already closed
      }
      const timer = setTimeout(() => proc.kill("SIGKILL"), 5000);
      await proc.exited;
      clearTimeout(timer);
      if (!opts.model) await model.close();
      if (!opts.device) box.cleanup();
    },
  };
  return agent;
}

export const initializeParams = { protocolVersion: 1, clientCapabilities: {} } as const;

/** An initialize that offers the client's own files, as an editor does. */
export const editorFsParams = { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } } as const;

/**
 * How a test's client answers the agent's fs requests (an error it throws is the answer's error);
 * `signal` aborts when the agent cancels the request.
 */
export type EditorFsHandlers = {
  read?: (params: acp.ReadTextFileRequest, signal: AbortSignal) => acp.ReadTextFileResponse | Promise<acp.ReadTextFileResponse>;
  write?: (params: acp.WriteTextFileRequest, signal: AbortSignal) => acp.WriteTextFileResponse | Promise<acp.WriteTextFileResponse>;
};

export type FsRequest = { method: "fs/read_text_file"; params: acp.ReadTextFileRequest } | { method: "fs/write_text_file"; params: acp.WriteTextFileRequest };
