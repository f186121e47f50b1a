/**
 * A turn of `serve --stdio` (on its own engine) whose login is logged out in another shell between
 * two of its steps: the next step's request is never sent with the removed token, and the turn ends
 * with the logout's sentence. A task call's helper, the same: its next step is not sent either.
 */
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { type Device, startDevice } from "../support/device.ts";
import { helperStep, isHelper, isStep, ownStep, step } from "../support/engine.ts";
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

test("a logout between a turn's steps: the next step is not sent, and the turn ends saying the login was logged out", async () => {
  d = await startDevice({ config: "remote:\n  roots: [/tmp]\n" });
  writeFileSync(join(d.project, "notes.md"), "one\n");
  a = await startStdioAgent({ model: d.model, device: { box: d.box, project: d.project } });
  await a.agent.request("initialize", initializeParams);
  const { sessionId } = (await a.agent.request("session/new", { cwd: d.project, mcpServers: [] })) as { sessionId: string };
  let release = () => {};
  const hold = new Promise<void>((resolve) => {
    release = resolve;
  });
  // The first step's tool call is held until the logout is done; the second step's answer is there if it were asked.
  d.model.push(step({ toolCalls: [{ name: "read", arguments: { path: "notes.md" } }], hold }), step({ text: "read it" }));
  const answer = rpcError(a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "read notes.md" }] }));
  await d.model.waitForRequests(1);
  expect(await runLembas(d.box, ["logout", "inst"])).toMatchObject({ code: 0 });
  release();
  const refused = await answer;
  expect(refused.message).toStartWith("the model inst/test-model was the login inst's, which was logged out (lembas logout)");
  expect(refused.message).toContain(`lembas login ${d.instance.url}`);
  expect(d.model.requests.filter((r) => isStep(r.body)).length).toBe(1);
}, 60_000);

test("a logout between a task helper's steps: the helper's next step is not sent, and the turn ends saying so", async () => {
  d = await startDevice({ config: "remote:\n  roots: [/tmp]\n" });
  writeFileSync(join(d.project, "notes.md"), "one\n");
  a = await startStdioAgent({ model: d.model, device: { box: d.box, project: d.project } });
  await a.agent.request("initialize", initializeParams);
  const { sessionId } = (await a.agent.request("session/new", { cwd: d.project, mcpServers: [] })) as { sessionId: string };
  let release = () => {};
  const hold = new Promise<void>((resolve) => {
    release = resolve;
  });
  d.model.push(
    ownStep({ toolCalls: [{ name: "task", arguments: { description: "read the notes", prompt: "Read notes.md" } }] }),
    helperStep({ toolCalls: [{ name: "read", arguments: { path: "notes.md" } }], hold }),
    helperStep({ text: "it says one" }),
    ownStep({ text: "one" }),
  );
  const answer = rpcError(a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "what do the notes say?" }] }));
  await d.model.waitForRequests(2);
  expect(await runLembas(d.box, ["logout", "inst"])).toMatchObject({ code: 0 });
  release();
  expect((await answer).message).toStartWith("the model inst/test-model was the login inst's, which was logged out (lembas logout)");
  expect(d.model.requests.filter((r) => isHelper(r.body))).toHaveLength(1);
  expect(d.model.requests.filter((r) => isStep(r.body) && !isHelper(r.body))).toHaveLength(1);
}, 60_000);
