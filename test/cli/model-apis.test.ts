import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FixtureRoute } from "../support/fixture-route.ts";
import { messagesRoute } from "../support/messages-server.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { type ProjectSandbox, projectSandbox, runLembas } from "../support/run.ts";
import { reply, textBlock } from "../model/fixtures/messages.ts";

// Which API each connection speaks, as `lembas models`, `doctor` and `doctor --probe` say it.
let box: ProjectSandbox;
let model: ScriptedModel;
let route: FixtureRoute;
beforeEach(async () => {
  route = messagesRoute([], { body: reply(textBlock(0, "ok")), times: Infinity });
  model = await startModel({ models: [{ id: "claude-sonnet-4-5" }, { id: "test-model" }], routes: [route] });
  box = projectSandbox(model.url);
  const config = `model: claude/claude-sonnet-4-5\nconnections:\n  claude:\n    base_url: ${model.url}\n    api: messages\n    api_key: sk-ant-test\n    body:\n      temperature: 0.2\n      top_k: 5\n  plain:\n    base_url: ${model.url}\n`;
  writeFileSync(join(box.configDir, "config.yaml"), config);
});
afterEach(async () => {
  await model.close();
  box.cleanup();
});

describe("a connection's API", () => {
  test("lembas models names each model's API, a Claude model's window from the table, another model's not", async () => {
    const listed = await runLembas(box, ["models"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split("\n")).toEqual([
      "* claude/claude-sonnet-4-5  messages  200k from the size of Claude models (lembas's table)",
      "  claude/test-model         messages  assumed 32k: set context under the connection",
      "  plain/claude-sonnet-4-5   chat      assumed 32k: set context under the connection",
      "  plain/test-model          chat      assumed 32k: set context under the connection",
      "",
    ]);
  });

  test("doctor says which API each connection speaks; --probe asks in that API", async () => {
    const plain = await runLembas(box, ["doctor"]);
    const lines = plain.stdout.split("\n");
    expect(lines).toContain(`ok   model connection claude ${model.url}: 2 models; speaks Anthropic Messages`);
    expect(lines).toContain(`ok   model connection plain ${model.url}: an OpenAI-compatible server, 2 chat models; speaks chat completions`);
    expect(lines).toContain("ok   model claude/test-model: window assumed 32k: set context under the connection");
    expect(lines).toContain("ok   model connection claude: its body's temperature, top_k are left out of requests that think (Anthropic takes them only without thinking); with effort off they are sent");
    expect(lines).toContain("ok   model claude/claude-sonnet-4-5: window 200k from the size of Claude models (lembas's table)");
    const probed = await runLembas(box, ["doctor", "--probe"]);
    expect(probed.stdout.split("\n")).toContain("ok   model connection claude: tools: yes (claude-sonnet-4-5 took a request with a tool in Anthropic Messages)");
    const [sent] = route.requests;
    expect(sent?.headers.get("x-api-key")).toBe("sk-ant-test");
    expect(sent?.body).toMatchObject({ model: "claude-sonnet-4-5", max_tokens: 1, tools: [{ name: "ping", input_schema: { type: "object" } }] });
  });

  test("lembas config set takes chat, messages or responses for api, and says so for anything else", async () => {
    expect((await runLembas(box, ["config", "set", "connections.plain.api", "responses"])).code).toBe(0);
    const wrong = await runLembas(box, ["config", "set", "connections.plain.api", "anthropic"]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toEndWith("connections.plain.api: must be one of chat, messages, responses\n");
  });
});
