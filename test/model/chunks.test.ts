import { expect, test } from "bun:test";
import { chunkSchema, isWellFormedChunk } from "../../src/model/chunks.ts";

const text = { choices: [{ index: 0, delta: { content: "hi" }, finish_reason: null }] };
const call = { index: 0, id: "call_1", type: "function", function: { name: "read", arguments: '{"pa' } };

// Shapes servers send, and shapes that are wrong in one place each.
const cases: [string, unknown][] = [
  ["text", text],
  ["role and refusal", { choices: [{ index: 0, delta: { role: "assistant", content: "", refusal: null } }] }],
  ["reasoning", { choices: [{ delta: { reasoning_content: "hmm" } }] }],
  ["reasoning (other field)", { choices: [{ delta: { reasoning: "hmm" } }] }],
  ["tool call start", { choices: [{ delta: { tool_calls: [call] } }] }],
  ["tool call piece", { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: 'th":1}' } }] } }] }],
  ["tool call with nulls", { choices: [{ delta: { content: null, tool_calls: [{ index: 1, id: null, function: null }] } }] }],
  ["finish", { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }],
  ["no delta", { choices: [{ index: 0, finish_reason: "length" }] }],
  ["null delta", { choices: [{ delta: null }] }],
  ["usage only", { choices: [], usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } }],
  ["nothing", {}],
  ["null choices", { choices: null, usage: null }],
  ["two choices", { choices: [{ index: 0, delta: { content: "a" } }, { index: 1, delta: { content: "b" } }] }],
  ["negative tool index", { choices: [{ delta: { tool_calls: [{ ...call, index: -1 }] } }] }],
  ["fractional tool index", { choices: [{ delta: { tool_calls: [{ ...call, index: 1.5 }] } }] }],
  ["null tool index", { choices: [{ delta: { tool_calls: [{ ...call, index: null }] } }] }],
  ["numeric call id", { choices: [{ delta: { tool_calls: [{ ...call, id: 7 }] } }] }],
  ["function as a string", { choices: [{ delta: { tool_calls: [{ ...call, function: "read" }] } }] }],
  ["tool_calls not a list", { choices: [{ delta: { tool_calls: call } }] }],
  ["content a number", { choices: [{ delta: { content: 5 } }] }],
  ["delta a list", { choices: [{ delta: [] }] }],
  ["choices an object", { choices: { 0: text.choices[0] } }],
  ["a choice that is null", { choices: [null] }],
  ["index a string", { choices: [{ index: "0", delta: { content: "a" } }] }],
  ["finish_reason a number", { choices: [{ delta: {}, finish_reason: 1 }] }],
  ["usage as strings", { usage: { prompt_tokens: "10", completion_tokens: "2" } }],
  ["usage without completion", { usage: { prompt_tokens: 10 } }],
  ["infinite usage", JSON.parse('{"usage":{"prompt_tokens":1e999,"completion_tokens":0}}')],
  ["infinite choice index", JSON.parse('{"choices":[{"index":1e999,"delta":{"content":"a"}}]}')],
  ["tool index past the safe integers", { choices: [{ delta: { tool_calls: [{ index: 9007199254740992 }] } }] }],
  ["NaN tokens", { usage: { prompt_tokens: Number.NaN, completion_tokens: 1 } }],
  ["refusal text", { choices: [{ delta: { refusal: "no" } }] }],
  ["refusal a number", { choices: [{ delta: { refusal: 1 } }] }],
  ["reasoning_details", { choices: [{ delta: { reasoning_details: [{ type: "reasoning.text", text: "t" }, 5] } }] }],
  ["reasoning_details not a list", { choices: [{ delta: { reasoning_details: { text: "t" } } }] }],
  ["a call's extra_content", { choices: [{ delta: { tool_calls: [{ ...call, extra_content: { google: { thought_signature: "s" } } }] } }] }],
  ["extra_content a string", { choices: [{ delta: { tool_calls: [{ ...call, extra_content: "s" }] } }] }],
  ["arguments as an object", { choices: [{ delta: { tool_calls: [{ index: 0, function: { name: "read", arguments: { path: "a" } } }] } }] }],
  ["arguments a number", { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: 5 } }] } }] }],
  ["Groq's x_groq", { choices: [], x_groq: { id: "req", usage: { prompt_tokens: 1, completion_tokens: 2 } } }],
  ["a chunk's own object name", { object: "chat.completion.chunk", choices: [] }],
  ["a list", [text]],
  ["a string", "data"],
  ["null", null],
];

test("the fast check accepts exactly what the chunk schema accepts", () => {
  for (const [name, value] of cases) {
    expect({ name, fast: isWellFormedChunk(value) }).toEqual({ name, fast: chunkSchema().safeParse(value).success });
  }
});

test("a chunk that carries an error always goes through the schema", () => {
  expect(isWellFormedChunk({ object: "error", message: "bad" })).toBe(false);
  expect(chunkSchema().safeParse({ object: "error", message: "bad", code: 400 }).success).toBe(true);
  expect(isWellFormedChunk({ error: { message: "overloaded" } })).toBe(false);
  expect(isWellFormedChunk({ error: "overloaded", choices: [] })).toBe(false);
  expect(chunkSchema().safeParse({ error: { message: "overloaded", code: 529 } }).success).toBe(true);
});
