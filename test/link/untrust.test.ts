/** A web session attached on the link after its project is untrusted while the service runs. */
import { afterEach, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Device, LEMBAS_INIT, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { rpcError } from "../support/rpc.ts";
import { runLembas } from "../support/run.ts";

let d: Device | null = null;
afterEach(async () => {
  await d?.close();
  d = null;
});

test("lembas untrust refuses an attached session's next prompt and other requests with session/new's sentence; trusted again, it runs", async () => {
  d = await startDevice();
  const device = d;
  const link = await device.serve({ init: null });
  await link.hello;
  await link.request("initialize", LEMBAS_INIT);
  const { sessionId } = (await link.request("session/new", { cwd: device.project, mcpServers: [] })) as { sessionId: string };
  const write = (path: string) => step({ toolCalls: [{ name: "write", arguments: { path, content: "x\n" } }] });
  device.model.push(write("one.txt"), step({ text: "ok" }));
  await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] }, 20_000);
  expect(existsSync(join(device.project, "one.txt"))).toBe(true);

  expect((await runLembas(device.box, ["untrust", device.project])).code).toBe(0);
  const sentence = `${device.project} is not in a trusted project: run lembas trust ${device.project} on the device`;
  device.model.push(write("two.txt"), step({ text: "ok" }));
  const refused = await rpcError(link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "two" }] }, 20_000));
  expect(refused).toMatchObject({ code: -32602, message: expect.stringContaining(sentence) });
  expect(existsSync(join(device.project, "two.txt"))).toBe(false);
  for (const [method, params] of [
    ["session/set_mode", { sessionId, modeId: "plan" }],
    ["_lembas/configure", { sessionId, effort: "low" }],
    ["_lembas/steer", { sessionId, text: "and then" }],
    ["_lembas/files/search", { sessionId, query: "one" }],
    ["_lembas/commands", { sessionId }],
  ] as const) {
    expect(await rpcError(link.request(method, params))).toMatchObject({ message: expect.stringContaining(sentence) });
  }
  const fresh = await rpcError(link.request("session/new", { cwd: device.project, mcpServers: [] }));
  expect(fresh.message).toContain(sentence);

  expect((await runLembas(device.box, ["trust", device.project])).code).toBe(0);
  await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "three" }] }, 20_000);
  expect(existsSync(join(device.project, "two.txt"))).toBe(true);
}, 90_000);
