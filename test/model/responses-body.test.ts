import { describe, expect, test } from "bun:test";
import type { ChatRequest } from "../../src/model/request.ts";
import { responsesBody } from "../../src/model/responses-body.ts";

const reasoningItem = { id: "rs_0", type: "reasoning", summary: [{ type: "summary_text", text: "Read it first." }], encrypted_content: "gAAAAB-enc" };

const request: ChatRequest = {
  model: "gpt-5.1-codex",
  messages: [
    { role: "system", content: "You are lembas." },
    { role: "user", content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_a1", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }],
      carry: [{ api: "responses", item: reasoningItem }, { api: "messages", item: { type: "thinking", thinking: "x", signature: "s" } }],
    },
    { role: "tool", tool_call_id: "call_a1", content: "export {}" },
  ],
  tools: [{ type: "function", function: { name: "read", description: "Reads a file", parameters: { type: "object", properties: { path: { type: "string" } } } } }],
  effort: "high",
};

describe("the Responses request body", () => {
  test("the system prompt is instructions; messages, calls, their outputs and the carried reasoning are input items, in order", () => {
    const body = responsesBody(request);
    expect(body.instructions).toBe("You are lembas.");
    expect(body.input).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "look" }, { type: "input_image", image_url: "data:image/png;base64,AAAA" }] },
      reasoningItem,
      { type: "function_call", call_id: "call_a1", name: "read", arguments: '{"path":"a.ts"}' },
      { type: "function_call_output", call_id: "call_a1", output: "export {}" },
    ]);
  });

  test("stateless and streamed, encrypted reasoning included, the effort as reasoning.effort with a summary, function tools flat", () => {
    const body = responsesBody(request, { maxOutput: 4096 });
    expect(body).toMatchObject({ stream: true, store: false, include: ["reasoning.encrypted_content"], reasoning: { effort: "high", summary: "auto" }, max_output_tokens: 4096 });
    expect(body.tools).toEqual([{ type: "function", name: "read", description: "Reads a file", parameters: { type: "object", properties: { path: { type: "string" } } }, strict: false }]);
  });

  test("effort off sends no reasoning; the connection's body fields are merged last; a server tool goes beside the functions", () => {
    const body = responsesBody({ ...request, effort: "off" }, { body: { service_tier: "flex" } }, [{ type: "web_search" }]);
    expect(body.reasoning).toBeUndefined();
    expect(body.service_tier).toBe("flex");
    expect((body.tools as { type: string }[]).map((t) => t.type)).toEqual(["function", "web_search"]);
  });
});
