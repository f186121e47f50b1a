/**
 * `lembas serve --stdio` through the service: every editor's connection and every link share the
 * service's one engine, yet a session one of them has open is not another's to load, resume, fork
 * or prompt — as serve --stdio with its own engine is refused a session another process holds.
 */
import { afterEach, expect, test } from "bun:test";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { newSession as linkSession, type ServiceTest, sharedServiceEach } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { rpcError } from "../support/rpc.ts";

let t: ServiceTest;
sharedServiceEach((bound) => {
  t = bound;
});
const agents: StdioAgent[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
});

async function editor(): Promise<StdioAgent> {
  const agent = await startStdioAgent({ device: t.d, model: t.d.model });
  agents.push(agent);
  await agent.agent.request("initialize", initializeParams);
  return agent;
}

test("an editor cannot load, resume, fork or prompt the session another editor has open in the service, and that editor keeps it when the other leaves", async () => {
  const a = await editor();
  const { sessionId } = await a.agent.request("session/new", { cwd: t.project, mcpServers: [] });
  const b = await editor();
  const asked = { sessionId, cwd: t.project, mcpServers: [] };
  for (const method of ["session/load", "session/resume", "session/fork"] as const) {
    const error = await rpcError(b.agent.request(method as "session/load", asked));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain(`session ${sessionId} is open in an editor on this device`);
  }
  expect((await rpcError(b.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "mine now" }] }))).code).toBe(-32602);
  expect(b.updates.filter((u) => u.sessionId === sessionId)).toEqual([]);
  // Its own editor forks it as ever.
  const fork = await a.agent.request("session/fork" as "session/load", asked);
  expect((fork as unknown as { sessionId: string }).sessionId).not.toBe(sessionId);
  // The other editor's leaving lets go of nothing of A's: A's session still answers A's prompt.
  await b.close();
  agents.splice(agents.indexOf(b), 1);
  t.model.push(step({ text: "still mine" }));
  const result = await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  expect(result.stopReason).toBe("end_turn");
  await a.close();
  agents.splice(agents.indexOf(a), 1);
  // Once A let go of it, the session is anyone's to load.
  const c = await editor();
  await c.agent.request("session/load", asked);
  expect(c.updates.some((u) => u.sessionId === sessionId)).toBe(true);
});

test("an editor cannot load the session the web has open on the service's link", async () => {
  const sessionId = await linkSession(t.link, t.project);
  const b = await editor();
  const error = await rpcError(b.agent.request("session/load", { sessionId, cwd: t.project, mcpServers: [] }));
  expect(error.code).toBe(-32602);
  expect(error.message).toContain(`session ${sessionId} is open in the lembas service for the web`);
});
