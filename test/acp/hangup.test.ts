import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findSandbox } from "../../src/tools/sandbox.ts";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { step } from "../support/engine.ts";
import { killSleeps, pathWithoutSandbox, sleepsWith, uniqueSleep, waitUntil } from "../support/procs.ts";

const bwrap = findSandbox().kind === "bwrap";
if (!bwrap) console.warn("SKIPPED in part: the sandboxed half of the hang-up tests needs bubblewrap");

let a: StdioAgent | null = null;
let markers: string[] = [];
const dirs: string[] = [];
afterEach(async () => {
  killSleeps(...markers);
  await a?.close();
  a = null;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * An editor's agent running a turn whose model started a background job (`sleep A`) and then a
 * command that started `setsid sleep B` (out of its process group) and waits on `sleep C`: it
 * resolves once all three run.
 */
async function busyAgent(sandboxed: boolean): Promise<{ agent: StdioAgent; sleeps: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "lembas-hangup-"));
  dirs.push(dir);
  const agent = await startStdioAgent(sandboxed ? {} : { env: { PATH: pathWithoutSandbox(dir) } });
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
});
