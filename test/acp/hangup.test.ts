import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { type Device, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { processesTagged } from "../mcp/processes.ts";
import { ROOT } from "../support/run.ts";
import { killSleeps, pathWithoutSandbox, sleepsWith, uniqueSleep, waitUntil } from "../support/procs.ts";
import { bwrapSandbox } from "../support/tools.ts";

const bwrap = bwrapSandbox("the sandboxed half of the hang-up tests");

let a: StdioAgent | null = null;
let d: Device | null = null;
let markers: string[] = [];
const dirs: string[] = [];
afterEach(async () => {
  killSleeps(...markers);
  await a?.close();
  a = null;
  await d?.close();
  d = null;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * An editor's agent running a turn whose model started a background job (`sleep A`) and then a
 * command that started `setsid sleep B` (out of its process group) and waits on `sleep C`: it
 * resolves once all three run.
 */
async function busyAgent(sandboxed: boolean, device?: Device): Promise<{ agent: StdioAgent; sleeps: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "lembas-hangup-"));
  dirs.push(dir);
  const env = sandboxed ? {} : { env: { PATH: pathWithoutSandbox(dir) } };
  const agent = await startStdioAgent(device ? { device: { box: device.box, project: device.project }, model: device.model } : env);
  a = agent;
  const sleeps = [uniqueSleep(), uniqueSleep(), uniqueSleep()];
  markers = sleeps;
  const [job, away, waited] = sleeps;
  agent.model.push(
    step({ toolCalls: [{ name: "bash", arguments: { command: `sleep ${job}`, run_in_background: true } }] }),
    step({ toolCalls: [{ name: "bash", arguments: { command: `setsid sleep ${away} & sleep ${waited}` } }] }),
    step({ text: "never reached" }),
  );
  await agent.agent.request("initialize", initializeParams);
  const { sessionId } = await agent.agent.request("session/new", { cwd: agent.project, mcpServers: [] });
  void agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "start things" }] }).catch(() => {});
  const running = await waitUntil(() => sleeps.every((s) => sleepsWith(s).length === 1), 15_000);
  if (!running) throw new Error(`the commands never all ran; the agent said:\n${agent.stderr()}`);
  return { agent, sleeps };
}

const nothingLeft = (sleeps: string[]) => waitUntil(() => sleeps.every((s) => sleepsWith(s).length === 0), 15_000);

describe.skipIf(!existsSync("/proc"))("an editor that goes leaves nothing running", () => {
  for (const sandboxed of [true, false]) {
    const where = sandboxed ? "in the sandbox" : "without a sandbox";
    test.skipIf(sandboxed && !bwrap)(`SIGHUP (the editor quit) ends serve --stdio cleanly, its job and command ${where} stopped`, async () => {
      const { agent, sleeps } = await busyAgent(sandboxed);
      agent.proc.kill("SIGHUP");
      expect(await agent.proc.exited).toBe(0);
      expect(await nothingLeft(sleeps)).toBe(true);
    });

    test.skipIf(sandboxed && !bwrap)(`SIGKILL of serve --stdio still stops its job and command ${where}`, async () => {
      const { agent, sleeps } = await busyAgent(sandboxed);
      agent.proc.kill("SIGKILL");
      await agent.proc.exited;
      expect(await nothingLeft(sleeps)).toBe(true);
    });
  }

  for (const signal of ["SIGHUP", "SIGKILL"] as const) {
    test(`${signal} of serve --stdio served by the service: the service stops the editor's job and command, and serves on`, async () => {
      d = await startDevice();
      await d.serve();
      const service = d.service;
      const { agent, sleeps } = await busyAgent(true, d);
      agent.proc.kill(signal);
      await agent.proc.exited;
      expect(await nothingLeft(sleeps)).toBe(true);
      expect(service?.exitCode).toBeNull();
    });
  }
});

describe.skipIf(!existsSync("/proc"))("an editor's MCP server goes with the agent", () => {
  test("SIGKILL of serve --stdio stops an editor's stdio server that outlives its stdin, and what it started", async () => {
    const agent = await startStdioAgent();
    a = agent;
    const tag = `killed-${crypto.randomUUID()}`;
    const server = { name: "notes", command: process.execPath, args: [join(ROOT, "test/support/mcp-server.ts"), "--linger", `--tag=${tag}`], env: [] };
    agent.model.push(step({ toolCalls: [{ id: "c1", name: "mcp__notes__echo", arguments: { text: "hi" } }] }), step({ text: "done" }));
    await agent.agent.request("initialize", initializeParams);
    const { sessionId } = (await agent.agent.request("session/new", { cwd: agent.project, mcpServers: [server], _meta: { mode: "auto" } })) as { sessionId: string };
    await agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    expect(processesTagged(tag).length).toBeGreaterThan(0);
    agent.proc.kill("SIGKILL");
    await agent.proc.exited;
    expect(await waitUntil(() => processesTagged(tag).length === 0, 15_000)).toBe(true);
  }, 30_000);
});
