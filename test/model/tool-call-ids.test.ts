/**
 * What a server's family is known to refuse is never sent to it, and Mistral's rule for tool-call
 * ids (nine letters and digits) is kept: ids made elsewhere — another server's, a call written as
 * text — are sent as ids it takes, the same one for a call and the result naming it.
 */
import { afterEach, expect, test } from "bun:test";
import { streamChat } from "../../src/model/client.ts";
import type { Endpoint } from "../../src/model/endpoint.ts";
import { MemoryRejectedFields } from "../../src/model/request-fields.ts";
import type { ChatMessage } from "../../src/model/request.ts";
import { fitToolCallIds } from "../../src/model/tool-call-ids.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";

let model: ScriptedModel | null = null;
afterEach(async () => {
  await model?.close();
  model = null;
});

const history: ChatMessage[] = [
  { role: "user", content: "read it" },
  { role: "assistant", content: null, tool_calls: [{ id: "call_1f3a9b7c2d", type: "function", function: { name: "read", arguments: "{}" } }, { id: "Ab3dE6gH9", type: "function", function: { name: "read", arguments: "{}" } }] },
  { role: "tool", tool_call_id: "call_1f3a9b7c2d", content: "one" },
  { role: "tool", tool_call_id: "Ab3dE6gH9", content: "two" },
];

async function sent(dialect: Endpoint["dialect"]): Promise<Record<string, unknown>> {
  model = await startModel({ replies: [{ text: "ok" }] });
  const endpoint: Endpoint = { name: "m", baseUrl: model.url, apiKey: null, ...(dialect ? { dialect } : {}) };
  for await (const _ of streamChat(endpoint, { model: "test-model", messages: history, effort: "medium" }, { rejectedFields: new MemoryRejectedFields() })) {
    // read to the end
  }
  const [request] = await model.waitForRequests(1);
  return request?.body as Record<string, unknown>;
}

test("to Mistral: ids it would refuse are sent as nine letters and digits, a call and its result alike; its own ids pass; stream_options and reasoning_effort are not sent", async () => {
  const body = await sent("mistral");
  const messages = body.messages as { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[];
  const [made, own] = messages[1]?.tool_calls?.map((c) => c.id) ?? [];
  expect(made).toMatch(/^[A-Za-z0-9]{9}$/);
  expect(own).toBe("Ab3dE6gH9");
  expect(messages[2]?.tool_call_id).toBe(made);
  expect(messages[3]?.tool_call_id).toBe("Ab3dE6gH9");
  expect(body.stream_options).toBeUndefined();
  expect(body.reasoning_effort).toBeUndefined();
});

test("to a server with no such rule: the ids and the fields go as they are", async () => {
  const body = await sent(undefined);
  const messages = body.messages as { tool_calls?: { id: string }[] }[];
  expect(messages[1]?.tool_calls?.[0]?.id).toBe("call_1f3a9b7c2d");
  expect(body.stream_options).toEqual({ include_usage: true });
});

test("the same id always becomes the same one, and two ids two", () => {
  const rule = { pattern: /^[A-Za-z0-9]{9}$/, length: 9 };
  const once = fitToolCallIds(history, rule);
  const again = fitToolCallIds(history, rule);
  expect(JSON.stringify(once)).toBe(JSON.stringify(again));
  const ids = Array.from({ length: 2000 }, (_, i) => fitToolCallIds([{ role: "tool", tool_call_id: `call_${i}`, content: "" }], rule)[0]);
  expect(new Set(ids.map((m) => (m?.role === "tool" ? m.tool_call_id : ""))).size).toBe(2000);
  expect(fitToolCallIds(history, null)).toBe(history);
});
