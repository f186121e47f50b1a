/**
 * serve --stdio and a project's command files: a FIFO in .agent/commands (any repo can ship one)
 * is never read, so no session of the editor waits on it; a link out of the project is not listed.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { step } from "../support/engine.ts";

let a: StdioAgent | null = null;
afterEach(async () => {
  // close() kills the agent after 5 s when it does not end: a frozen one too.
  await a?.close();
  a = null;
});

/** The commands an available_commands_update listed for a session. */
async function commandsOf(agent: StdioAgent, sessionId: string): Promise<string[]> {
  const update = await agent.waitForUpdate((u) => u.sessionId === sessionId && u.update.sessionUpdate === "available_commands_update", 15_000);
  return (update.update as { availableCommands: { name: string }[] }).availableCommands.map((c) => c.name);
}

test("a FIFO among a project's command files freezes nothing: another session's prompt is answered, and the FIFO is said skipped", async () => {
  a = await startStdioAgent();
  await a.agent.request("initialize", initializeParams);
  const good = (await a.agent.request("session/new", { cwd: a.project, mcpServers: [] })) as { sessionId: string };
  const other = join(a.box.dir, "other");
  mkdirSync(join(other, ".agent", "commands"), { recursive: true });
  expect(Bun.spawnSync(["mkfifo", join(other, ".agent", "commands", "x.md")]).exitCode).toBe(0);
  writeFileSync(join(other, ".agent", "commands", "fine.md"), "Do the fine thing.\n");
  const bad = (await a.agent.request("session/new", { cwd: other, mcpServers: [] })) as { sessionId: string };
  expect(await commandsOf(a, bad.sessionId)).toContain("fine");
  a.model.push(step({ text: "still here" }));
  // Raced with a bound only so that a frozen agent fails the test instead of hanging it.
  const answer = await Promise.race([
    a.agent.request("session/prompt", { sessionId: good.sessionId, prompt: [{ type: "text", text: "hi" }] }).then((r) => (r as { stopReason: string }).stopReason),
    Bun.sleep(20_000).then(() => "no answer"),
  ]);
  expect(answer).toBe("end_turn");
  const card = await a.waitForUpdate((u) => u.sessionId === bad.sessionId && String((u.update as { title?: string }).title).endsWith("x.md is skipped"), 15_000);
  expect(JSON.stringify(card.update)).toContain("it is a FIFO, not a regular file");
}, 60_000);

test("a project's command file linked out of the project is not listed to the editor", async () => {
  a = await startStdioAgent();
  writeFileSync(join(a.box.dir, "outside.md"), "OUTSIDE-TEXT\n");
  mkdirSync(join(a.project, ".agent", "commands"), { recursive: true });
  symlinkSync(join(a.box.dir, "outside.md"), join(a.project, ".agent", "commands", "review-pr.md"));
  await a.agent.request("initialize", initializeParams);
  const { sessionId } = (await a.agent.request("session/new", { cwd: a.project, mcpServers: [] })) as { sessionId: string };
  expect(await commandsOf(a, sessionId)).not.toContain("review-pr");
  const card = await a.waitForUpdate((u) => u.sessionId === sessionId && String((u.update as { title?: string }).title).endsWith("review-pr.md is skipped"), 15_000);
  expect(JSON.stringify(card.update)).toContain("it leads outside the project");
});
