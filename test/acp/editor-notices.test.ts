/**
 * An editor hears of what went wrong beside the answer (issue 31): on stdio, a notice (an MCP
 * server that did not start, a command file that could not be read) is a failed tool call card of
 * its own, as codex-acp shows an MCP server's failed start; once per notice, and never in what the
 * model is sent. The link's client keeps its notice events and gets no such card.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { type Device, startDevice } from "../support/device.ts";
import { isStep, step } from "../support/engine.ts";

let a: StdioAgent | null = null;
let d: Device | null = null;
afterEach(async () => {
  await a?.close();
  await d?.close();
  a = null;
  d = null;
});

const cards = (agent: StdioAgent, sessionId: string) =>
  agent.updates
    .filter((u) => u.sessionId === sessionId)
    .map((u) => u.update as Record<string, unknown>)
    .filter((u) => u.sessionUpdate === "tool_call" && String(u.toolCallId).startsWith("lembas_notice_"));

const cardText = (card: Record<string, unknown> | undefined) => (card?.content as { content: { text: string } }[] | undefined)?.[0]?.content.text ?? "";

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; !check(); i++) {
    if (i > 500) throw new Error(`never: ${what}`);
    await Bun.sleep(20);
  }
}

test("an editor's MCP server that did not start is a failed card naming it, once, and the model is not told of it", async () => {
  a = await startStdioAgent();
  await a.agent.request("initialize", initializeParams);
  const server = { name: "broken", command: join(a.project, "no-such-server"), args: [], env: [] };
  const { sessionId } = (await a.agent.request("session/new", { cwd: a.project, mcpServers: [server], _meta: { mode: "auto" } })) as { sessionId: string };
  a.model.push(step({ text: "first" }), step({ text: "second" }));
  await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  await until(() => cards(a!, sessionId).length > 0, "the card");
  await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] });

  const shown = cards(a, sessionId);
  expect(shown).toHaveLength(1);
  expect(shown[0]).toMatchObject({ title: 'MCP server "broken" did not start', kind: "other", status: "failed" });
  expect(cardText(shown[0])).toContain('MCP server "broken" did not start:');
  const sent = JSON.stringify(a.model.requests.filter((r) => isStep(r.body)).map((r) => r.body.messages));
  expect(sent).not.toContain("did not start");
});

test("a command file that cannot be read is a card saying it is skipped", async () => {
  a = await startStdioAgent();
  mkdirSync(join(a.project, ".agent", "commands"), { recursive: true });
  writeFileSync(join(a.project, ".agent", "commands", "ship.md"), "---\nmode: sideways\n---\nShip it.\n");
  await a.agent.request("initialize", initializeParams);
  const { sessionId } = (await a.agent.request("session/new", { cwd: a.project, mcpServers: [] })) as { sessionId: string };
  await until(() => cards(a!, sessionId).length > 0, "the card");
  const [card] = cards(a, sessionId);
  expect(card).toMatchObject({ kind: "other", status: "failed" });
  expect(String(card?.title)).toEndWith("ship.md is skipped");
  expect(cardText(card)).toContain("mode");
});

test("the link's client gets no notice cards (it reads the notice events)", async () => {
  d = await startDevice();
  mkdirSync(join(d.project, ".agent", "commands"), { recursive: true });
  writeFileSync(join(d.project, ".agent", "commands", "ship.md"), "---\nmode: sideways\n---\nShip it.\n");
  const link = await d.serve();
  const { sessionId } = (await link.request("session/new", { cwd: d.project, mcpServers: [] })) as { sessionId: string };
  await link.waitForNotification((n) => n.method === "session/update" && JSON.stringify(n.params).includes("available_commands_update"), 10_000);
  d.model.push(step({ text: "ok" }));
  await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] }, 30_000);
  const updates = link.notifications.filter((n) => n.method === "session/update").map((n) => JSON.stringify(n.params));
  expect(updates.some((u) => u.includes("lembas_notice_"))).toBe(false);
});
