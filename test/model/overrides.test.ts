import { afterEach, expect, test } from "bun:test";
import { Config } from "../../src/config/schema.ts";
import { streamChat } from "../../src/model/client.ts";
import { ModelRegistry } from "../../src/model/registry.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";

let model: ScriptedModel | null = null;
afterEach(async () => {
  await model?.close();
  model = null;
});

async function drain(events: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of events) {
    // read to the end
  }
}

test("a connection's headers, body and max_output go with every chat request; its overrides are on the resolved model", async () => {
  model = await startModel({ models: [{ id: "m", max_model_len: 32768, owned_by: "vllm" }] });
  const config = Config.parse({
    model: "c/m",
    connections: {
      c: {
        base_url: model.url,
        context: 100_000,
        max_output: 2000,
        supports_tools: false,
        reasoning: false,
        headers: { "x-team": "blue" },
        body: { options: { num_ctx: 8192 }, provider: { order: ["a"] } },
      },
    },
  });
  const resolved = await new ModelRegistry(config, [], {}, []).resolve(null);
  expect(resolved).toMatchObject({
    contextLength: 100_000,
    window: { tokens: 100_000, from: "config", where: "context in config.yaml" },
    maxOutput: 2000,
    supportsTools: false,
    reasoning: false,
    dialect: "vllm",
    endpoint: { dialect: "vllm" },
  });
  await drain(streamChat(resolved.endpoint, { model: resolved.servedId, messages: [{ role: "user", content: "hi" }], effort: "off" }));
  const [request] = await model.waitForRequests(1);
  expect(request?.headers.get("x-team")).toBe("blue");
  expect(request?.body).toMatchObject({ max_tokens: 2000, options: { num_ctx: 8192 }, provider: { order: ["a"] }, stream: true });
});

test("without overrides: the server's window and where it was read, tools and reasoning unknown, no max_tokens", async () => {
  model = await startModel({ models: [{ id: "m", max_model_len: 32768, owned_by: "vllm" }, { id: "bare" }] });
  const registry = new ModelRegistry(Config.parse({ connections: { c: { base_url: model.url } } }), [], {}, []);
  const resolved = await registry.resolve("c/m");
  expect(resolved).toMatchObject({ contextLength: 32768, window: { from: "server", where: "/v1/models max_model_len" }, maxOutput: null, supportsTools: null, reasoning: null });
  expect((await registry.resolve("c/bare")).window).toEqual({ tokens: 32768, from: "default", where: "assumed 32k: set context under the connection" });
  expect((await registry.resolve("c/bare")).contextLength).toBeNull();
  await drain(streamChat(resolved.endpoint, { model: "m", messages: [{ role: "user", content: "hi" }], effort: "off" }));
  const [request] = await model.waitForRequests(1);
  expect(request?.body.max_tokens).toBeUndefined();
});
