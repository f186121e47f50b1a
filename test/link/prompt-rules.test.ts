/**
 * What a link's session/new and session/prompt may say, and what the device answers: a turnId it
 * would not keep is refused (never replaced), a model of another login is refused at session/new
 * as _lembas/configure refuses it, and a refusal is one of the spec's four stop reasons.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { initializeParams, startStdioAgent, type StdioAgent } from "../support/acp.ts";
import { type Device, newSession, startDevice, TOKEN } from "../support/device.ts";
import { isStep, step } from "../support/engine.ts";
import { type Instance, type Link, startInstance } from "../support/instance.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { rpcError } from "../support/rpc.ts";
import { runLembas } from "../support/run.ts";

let d: Device | null = null;
let other: { model: ScriptedModel; instance: Instance } | null = null;
let stdio: StdioAgent | null = null;
afterEach(async () => {
  await d?.close();
  d = null;
  await other?.instance.close();
  await other?.model.close();
  other = null;
  await stdio?.close();
  stdio = null;
});

const FLASH = "deepseek/deepseek-flash";

async function linked(): Promise<{ device: Device; link: Link }> {
  const device = await startDevice();
  d = device;
  return { device, link: await device.serve() };
}

describe("a prompt's turnId", () => {
  const prompt = (sessionId: string, turnId: unknown) => ({ sessionId, prompt: [{ type: "text", text: "hi" }], _meta: { lembas: { turnId } } });

  test("longer than the 200 characters the device keeps: -32602 with a sentence, and nothing runs", async () => {
    const { device, link } = await linked();
    const sessionId = await newSession(link, device.project);
    const error = await rpcError(link.request("session/prompt", prompt(sessionId, "t".repeat(201))));
    expect(error).toMatchObject({ code: -32602, message: "Invalid params: _meta.lembas.turnId must be 1 to 200 characters long (this one has 201)" });
    expect(device.model.requests.filter((r) => isStep(r.body))).toEqual([]);
    // 200 is kept as it is.
    device.model.push(step({ text: "ok" }));
    const id = "t".repeat(200);
    expect(await link.request("session/prompt", prompt(sessionId, id))).toMatchObject({ _meta: { lembas: { turnId: id } } });
  });

  test("not a string: -32602 with a sentence", async () => {
    const { device, link } = await linked();
    const sessionId = await newSession(link, device.project);
    const error = await rpcError(link.request("session/prompt", prompt(sessionId, 42)));
    expect(error).toMatchObject({ code: -32602, message: "Invalid params: _meta.lembas.turnId must be a string, not number" });
    expect(device.model.requests.filter((r) => isStep(r.body))).toEqual([]);
  });
});

describe("a model refusal", () => {
  test("on the link the answer is end_turn and says the model refused; its words came as text", async () => {
    const { device, link } = await linked();
    const sessionId = await newSession(link, device.project);
    device.model.push(step({ text: "I can't help with that.", finishReason: "content_filter" }));
    const answer = await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "do it" }], _meta: { lembas: { turnId: "r-1" } } });
    expect(answer).toEqual({ stopReason: "end_turn", _meta: { lembas: { turnId: "r-1", message: "the model refused to answer" } } });
    // Sent again, the kept answer reads the same.
    expect(await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "do it" }], _meta: { lembas: { turnId: "r-1" } } })).toEqual(answer);
  });

  test("an editor (plain ACP) keeps ACP's refusal", async () => {
    stdio = await startStdioAgent();
    await stdio.agent.request("initialize", initializeParams);
    const { sessionId } = (await stdio.agent.request("session/new", { cwd: stdio.project, mcpServers: [] })) as { sessionId: string };
    stdio.model.push(step({ text: "I can't help with that.", finishReason: "content_filter" }));
    const answer = (await stdio.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "do it" }] })) as { stopReason: string };
    expect(answer.stopReason).toBe("refusal");
  });
});

describe("another login's model", () => {
  /** A second instance serving FLASH, logged in to after the link's own (so its refs are other/…). */
  async function withOther(device: Device): Promise<ScriptedModel> {
    const model = await startModel({ models: [{ id: FLASH, kind: "chat" }] });
    const instance = await startInstance({ token: TOKEN, model, name: "other" });
    other = { model, instance };
    const login = await runLembas(device.box, ["login", instance.url, "--token-stdin", "--name", "other"], { stdin: TOKEN });
    if (login.code !== 0) throw new Error(`login other failed: ${login.stderr}`);
    return model;
  }

  test("session/new naming it as a device ref is refused with a sentence, as _lembas/configure refuses it; nothing reaches that account", async () => {
    const device = await startDevice();
    d = device;
    const otherModel = await withOther(device);
    const link = await device.serve();
    const refused = await rpcError(link.request("session/new", { cwd: device.project, mcpServers: [], _meta: { model: `other/${FLASH}` } }));
    expect(refused).toMatchObject({ code: -32602, message: expect.stringContaining(`model other/${FLASH} is served by other, another instance this device is logged in to`) });

    const sessionId = await newSession(link, device.project);
    const configure = await rpcError(link.request("_lembas/configure", { sessionId, model: `other/${FLASH}` }));
    expect(configure.code).toBe(-32602);
    expect(otherModel.requests).toEqual([]);

    // The device's own connection and this instance's models stay allowed.
    const own = (await link.request("session/new", { cwd: device.project, mcpServers: [], _meta: { model: "test/test-model" } })) as { _meta: { lembas: { model: string } } };
    expect(own._meta.lembas.model).toBe("test/test-model");
    const mine = (await link.request("session/new", { cwd: device.project, mcpServers: [], _meta: { model: "inst/test-model" } })) as { _meta: { lembas: { model: string } } };
    expect(mine._meta.lembas.model).toBe("inst/test-model");
  }, 30_000);
});
