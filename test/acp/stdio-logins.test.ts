/**
 * A `serve --stdio` on its own engine sees the store's logins change as the service does: after a
 * `lembas logout` in another shell, the open session's next turn fails with a sentence naming the
 * logout (the forgotten token is not sent), a new session is not offered the login's models; once
 * logged in again, they come back.
 */
import { afterEach, expect, test } from "bun:test";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { type Device, TOKEN, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { rpcError } from "../support/rpc.ts";
import { runLembas } from "../support/run.ts";

let d: Device | null = null;
let a: StdioAgent | null = null;
afterEach(async () => {
  await a?.close();
  a = null;
  await d?.close();
  d = null;
});

type NewSession = { sessionId: string; configOptions: { id: string; options: { value: string }[] }[] };

const prompt = (agent: StdioAgent, sessionId: string, text: string) => agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
/** The models session/new offers (its model option; none without a model to offer). */
const offered = (made: NewSession) => (made.configOptions.find((o) => o.id === "model")?.options ?? []).map((o) => o.value);

test("a logout in another shell: the open session's next turn says so and sends nothing, new sessions are not offered its models; a login brings them back", async () => {
  // No connection of the device's own: the models are the instance's, through the login `inst`.
  d = await startDevice({ config: "remote:\n  roots: [/tmp]\n" });
  a = await startStdioAgent({ model: d.model, device: { box: d.box, project: d.project } });
  await a.agent.request("initialize", initializeParams);
  const first = (await a.agent.request("session/new", { cwd: d.project, mcpServers: [] })) as NewSession;
  expect(offered(first)).toContain("inst/test-model");
  d.model.push(step({ text: "one" }));
  expect(await prompt(a, first.sessionId, "one")).toMatchObject({ stopReason: "end_turn" });
  // The turn's request, and the session's title asked after it.
  const sent = (await d.model.waitForRequests(2)).length;
  // A session whose model is named, not the default.
  const pinned = (await a.agent.request("session/new", { cwd: d.project, mcpServers: [] })) as NewSession;
  await a.agent.request("session/set_config_option", { sessionId: pinned.sessionId, configId: "model", value: "inst/test-model" });

  expect(await runLembas(d.box, ["logout", "inst"])).toMatchObject({ code: 0 });
  d.model.push(step({ text: "two" }));
  const refused = await rpcError(prompt(a, first.sessionId, "two"));
  expect(refused.message).toContain("inst");
  expect(refused.message).toContain("lembas logout");
  expect(refused.message).toContain(`lembas login ${d.instance.url}`);
  const named = await rpcError(prompt(a, pinned.sessionId, "two"));
  expect(named.message).toStartWith("the model inst/test-model was the login inst's, which was logged out (lembas logout)");
  const later = (await a.agent.request("session/new", { cwd: d.project, mcpServers: [] })) as NewSession;
  expect(offered(later)).not.toContain("inst/test-model");
  expect(d.model.requests.length).toBe(sent);

  const again = await runLembas(d.box, ["login", d.instance.url, "--name", "inst", "--token-stdin"], { stdin: TOKEN });
  expect(again.code).toBe(0);
  const back = (await a.agent.request("session/new", { cwd: d.project, mcpServers: [] })) as NewSession;
  expect(offered(back)).toContain("inst/test-model");
  expect(await prompt(a, first.sessionId, "two")).toMatchObject({ stopReason: "end_turn" });
  expect(d.model.requests.length).toBeGreaterThan(sent);
}, 60_000);
