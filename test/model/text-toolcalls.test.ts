import { afterEach, describe, expect, test } from "bun:test";
import { streamChatBatches } from "../../src/model/client.ts";
import type { Endpoint } from "../../src/model/endpoint.ts";
import type { ModelEvent } from "../../src/model/events.ts";
import type { ToolSpec } from "../../src/model/request.ts";
import { pythonicCalls, splitJsonValues } from "../../src/model/text-call-values.ts";
import { TextToolCalls, textToolCallsFor } from "../../src/model/text-toolcalls.ts";
import { startModel } from "../support/model.ts";

const OFFERED = new Set(["write", "read", "bash"]);

type Outcome = { text: string; calls: { index: number; name: string; args: unknown }[]; finish: string | undefined };

/** Streams `chunks` as text batches, then a finish, through the transform; collects what comes out. */
function run(chunks: readonly string[], offered: ReadonlySet<string> = OFFERED, before: ModelEvent[] = []): Outcome {
  const t = new TextToolCalls(offered);
  const events: ModelEvent[] = [...t.push(before)];
  for (const delta of chunks) events.push(...t.push([{ type: "text", delta }]));
  events.push(...t.push([{ type: "finish", reason: "end_turn" }]));
  return collect(events);
}

function collect(events: readonly ModelEvent[]): Outcome {
  const out: Outcome = { text: "", calls: [], finish: undefined };
  for (const e of events) {
    if (e.type === "text") out.text += e.delta;
    if (e.type === "tool_call_delta") out.calls.push({ index: e.index, name: e.name ?? "", args: JSON.parse(e.argumentsDelta) });
    if (e.type === "finish") out.finish = e.reason;
  }
  return out;
}

/** The same outcome whatever the chunking: whole, split in two at every position, one character a chunk. */
function everySplit(whole: string, offered: ReadonlySet<string> = OFFERED): Outcome {
  const expected = run([whole], offered);
  for (let i = 1; i < whole.length; i++) expect(run([whole.slice(0, i), whole.slice(i)], offered)).toEqual(expected);
  expect(run([...whole], offered)).toEqual(expected);
  return expected;
}

const writeArgs = { path: "a.txt", content: "hi\n" };

describe("text tool calls", () => {
  test("<tool_call> (Hermes, Qwen) ending the answer is a call, the text before it kept", () => {
    const out = everySplit(`I will write it.\n<tool_call>\n{"name": "write", "arguments": ${JSON.stringify(writeArgs)}}\n</tool_call>\n`);
    expect(out).toEqual({ text: "I will write it.\n\n", calls: [{ index: 0, name: "write", args: writeArgs }], finish: "tool_calls" });
  });

  test("a call with words after it is an example: it stays text, in every format held until decided", () => {
    const tagged = `I would write it so:\n<tool_call>\n{"name": "write", "arguments": ${JSON.stringify(writeArgs)}}\n</tool_call>\nDone.`;
    expect(everySplit(tagged)).toEqual({ text: tagged, calls: [], finish: "end_turn" });
    const fenced = 'A bash call looks like this:\n```json\n{"name": "bash", "arguments": {"command": "touch PWNED"}}\n```\nI ran nothing.';
    expect(everySplit(fenced)).toEqual({ text: fenced, calls: [], finish: "end_turn" });
    const qwen = "<tool_call>\n<function=bash>\n<parameter=command>\ntouch PWNED\n</parameter>\n</function>\n</tool_call> is the form.";
    expect(everySplit(qwen)).toEqual({ text: qwen, calls: [], finish: "end_turn" });
  });

  test("an example, words, then a call ending the answer: only the last is a call", () => {
    const example = '```json\n{"name": "bash", "arguments": {"command": "touch PWNED"}}\n```';
    const out = everySplit(`Like this:\n${example}\nNow for real:\n<tool_call>{"name": "read", "arguments": {"path": "a"}}</tool_call>`);
    expect(out).toEqual({ text: `Like this:\n${example}\nNow for real:\n`, calls: [{ index: 0, name: "read", args: { path: "a" } }], finish: "tool_calls" });
  });

  test("Qwen3-Coder's <function=…> form inside <tool_call>, values typed by the tool's schema", () => {
    const types: Record<string, string> = { timeout: "integer", background: "boolean", path: "string" };
    const whole = "Running it.\n<tool_call>\n<function=bash>\n<parameter=command>\necho 'a < b'\nls\n</parameter>\n<parameter=timeout>\n30\n</parameter>\n<parameter=background>\nfalse\n</parameter>\n</function>\n</tool_call>";
    const expected = { text: "Running it.\n", calls: [{ index: 0, name: "bash", args: { command: "echo 'a < b'\nls", timeout: 30, background: false } }], finish: "tool_calls" };
    const go = (chunks: string[]) => {
      const t = new TextToolCalls(OFFERED, (_tool, p) => types[p]);
      return collect([...chunks.flatMap((delta) => t.push([{ type: "text", delta }])), ...t.push([{ type: "finish", reason: "end_turn" }])]);
    };
    for (let i = 1; i < whole.length; i++) expect(go([whole.slice(0, i), whole.slice(i)])).toEqual(expected);
    expect(go(["<tool_call><function=rm><parameter=path>/</parameter></function></tool_call>"]).calls).toEqual([]);
  });

  test("several <tool_call> blocks are several calls; arguments as a JSON string are taken", () => {
    const out = everySplit(`<tool_call>{"name":"read","arguments":{"path":"a"}}</tool_call>\n<tool_call>{"name":"read","arguments":"{\\"path\\":\\"b\\"}"}</tool_call>`);
    expect(out.calls).toEqual([
      { index: 0, name: "read", args: { path: "a" } },
      { index: 1, name: "read", args: { path: "b" } },
    ]);
    expect(out.text).toBe("\n");
  });

  test("a ```json block naming a tool is a call, with arguments or parameters", () => {
    const out = everySplit('Reading:\n```json\n{"name": "read", "parameters": {"path": "x.ts"}}\n```\n');
    expect(out).toEqual({ text: "Reading:\n\n", calls: [{ index: 0, name: "read", args: { path: "x.ts" } }], finish: "tool_calls" });
  });

  test("a ```json block that is not a call, and code blocks of other languages, stay text", () => {
    const json = 'Here:\n```json\n{"name": "my-package", "version": "1.0.0"}\n```\nok';
    expect(everySplit(json)).toEqual({ text: json, calls: [], finish: "end_turn" });
    const ts = "```ts\nconst a: Array<string> = [`x`];\n```\n";
    expect(everySplit(ts)).toEqual({ text: ts, calls: [], finish: "end_turn" });
  });

  test("a fence or tag inside the arguments' strings does not end the call", () => {
    const args = { path: "README.md", content: "# T\n```sh\nls\n```\n</tool_call>\n" };
    const fenced = everySplit(`\`\`\`json\n{"name":"write","arguments":${JSON.stringify(args)}}\n\`\`\``);
    expect(fenced.calls).toEqual([{ index: 0, name: "write", args }]);
    expect(fenced.text).toBe("");
    const tagged = run([`<tool_call>{"name":"write","arguments":${JSON.stringify(args)}}</tool_call>`]);
    expect(tagged.calls).toEqual([{ index: 0, name: "write", args }]);
  });

  test("<|python_tag|> (Llama 3.1/3.2) with one or several calls", () => {
    const out = everySplit('<|python_tag|>{"name": "read", "parameters": {"path": "a"}}; {"name": "bash", "parameters": {"command": "ls"}}');
    expect(out.calls).toEqual([
      { index: 0, name: "read", args: { path: "a" } },
      { index: 1, name: "bash", args: { command: "ls" } },
    ]);
    expect(out.text).toBe("");
  });

  test("a bare JSON call as the whole answer (Llama 3.x), with type function", () => {
    const out = everySplit('\n{"type": "function", "name": "bash", "parameters": {"command": "ls -la"}}');
    expect(out).toEqual({ text: "\n", calls: [{ index: 0, name: "bash", args: { command: "ls -la" } }], finish: "tool_calls" });
  });

  test("an answer that is JSON but not a call, and JSON in the middle of an answer, stay text", () => {
    const doc = '{"name": "lembas", "version": "1"}';
    expect(everySplit(doc)).toEqual({ text: doc, calls: [], finish: "end_turn" });
    const mid = 'Use {"name": "read", "arguments": {"path": "a"}} like that.';
    expect(everySplit(mid)).toEqual({ text: mid, calls: [], finish: "end_turn" });
  });

  test("an answer that is a JSON document with a name is shown once its object closed, not at the end", () => {
    const t = new TextToolCalls(OFFERED);
    const shown = (delta: string) => collect(t.push([{ type: "text", delta }])).text;
    expect(shown('{"name": "lembas",')).toBe("");
    expect(shown(' "scripts": {"a": "}"}}')).toBe('{"name": "lembas", "scripts": {"a": "}"}}');
    expect(shown(" and more")).toBe(" and more");
    const call = '{"name": "read", "parameters": {"path": "a"}}';
    expect(everySplit(`${call}\n${call}`).calls).toHaveLength(2);
    const callThenText = `${call} and some words`;
    expect(everySplit(callThenText)).toEqual({ text: callThenText, calls: [], finish: "end_turn" });
  });

  test("pythonic calls as the whole answer (Llama 3.2 / 4), read without evaluating", () => {
    const out = everySplit(`[read(path="a.ts"), bash(command='echo "hi"', timeout=5, background=False)]`);
    expect(out.calls).toEqual([
      { index: 0, name: "read", args: { path: "a.ts" } },
      { index: 1, name: "bash", args: { command: 'echo "hi"', timeout: 5, background: false } },
    ]);
    expect(out.text).toBe("");
    expect(pythonicCalls("[read(path=open('x'))]", OFFERED)).toBeNull();
    expect(pythonicCalls("[read(path='x')] and more", OFFERED)).toBeNull();
    const link = "[a link](https://example.com) and [read](x)";
    expect(everySplit(link)).toEqual({ text: link, calls: [], finish: "end_turn" });
  });

  test("[TOOL_CALLS] (Mistral) before v11 and from v11", () => {
    const old = everySplit('Sure.[TOOL_CALLS][{"name": "read", "arguments": {"path": "a"}}, {"name": "read", "arguments": {"path": "b"}}]');
    expect(old.text).toBe("Sure.");
    expect(old.calls.map((c) => c.args)).toEqual([{ path: "a" }, { path: "b" }]);
    const v11 = everySplit('[TOOL_CALLS]read[ARGS]{"path": "a"}[TOOL_CALLS]bash{"command": "ls"}');
    expect(v11.calls).toEqual([
      { index: 0, name: "read", args: { path: "a" } },
      { index: 1, name: "bash", args: { command: "ls" } },
    ]);
    expect(v11.text).toBe("");
  });

  test("a tool the turn did not offer stays text", () => {
    const whole = 'Hm.\n<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>';
    expect(everySplit(whole)).toEqual({ text: whole, calls: [], finish: "end_turn" });
    expect(everySplit('[TOOL_CALLS]rm{"path": "/"}')).toEqual({ text: '[TOOL_CALLS]rm{"path": "/"}', calls: [], finish: "end_turn" });
  });

  test("arguments that are not an object stay text", () => {
    for (const bad of ['<tool_call>{"name":"read","arguments":[1]}</tool_call>', '<tool_call>{"name":"read","arguments":"nope"}</tool_call>', '<tool_call>{"name":"read"}</tool_call>', "<tool_call>{not json}</tool_call>"]) {
      expect(everySplit(bad)).toEqual({ text: bad, calls: [], finish: "end_turn" });
    }
  });

  test("a partial tag or a call cut off at the stream's end stays text; a last tag left open with whole JSON is a call", () => {
    for (const cut of ["Almost <tool_ca", 'x <tool_call>{"name": "read", "arguments": {"pa', "```js", "```json\n{", "[TOOL_CALLS][{", "<|python"]) {
      expect(run([cut])).toEqual({ text: cut, calls: [], finish: "end_turn" });
    }
    const open = run(['<tool_call>{"name": "read", "arguments": {"path": "a"}}']);
    expect(open.calls).toEqual([{ index: 0, name: "read", args: { path: "a" } }]);
  });

  test("while streaming, a call's text is held back until the answer ends, and shown when words follow it; ordinary text is not held", () => {
    const t = new TextToolCalls(OFFERED);
    const shown = (delta: string) => collect(t.push([{ type: "text", delta }])).text;
    expect(shown("Writing ")).toBe("Writing ");
    expect(shown("now. <tool")).toBe("now. ");
    const call = '<tool_call>{"name":"write","arguments":{"path":"a","content":"b"}}</tool_call>';
    expect(shown('_call>{"name":"write",')).toBe("");
    expect(shown('"arguments":{"path":"a","content":"b"}}</tool_call>')).toBe("");
    expect(shown("\n")).toBe("");
    expect(shown(" ok, a < b and [x]")).toBe(`${call}\n ok, a < b and [x]`);
    expect(shown(" more")).toBe(" more");
    expect(collect(t.push([{ type: "finish", reason: "end_turn" }]))).toEqual({ text: "", calls: [], finish: "end_turn" });

    const tail = new TextToolCalls(OFFERED);
    expect(collect(tail.push([{ type: "text", delta: `Writing.\n${call}\n` }])).text).toBe("Writing.\n");
    expect(collect(tail.push([{ type: "finish", reason: "end_turn" }]))).toEqual({ text: "\n", calls: [{ index: 0, name: "write", args: { path: "a", content: "b" } }], finish: "tool_calls" });
  });

  test("a batch of ordinary text passes through as the same array", () => {
    const t = new TextToolCalls(OFFERED);
    t.push([{ type: "text", delta: "Hello" }]);
    const batch: ModelEvent[] = [{ type: "text", delta: " plain words, no markers." }, { type: "reasoning", delta: "hm" }];
    expect(t.push(batch)).toBe(batch);
  });

  test("once the server sends a call of its own, a call in the text is text, and nothing more is read in the turn", () => {
    const native = { seen: false };
    const t = new TextToolCalls(OFFERED, undefined, native);
    const written = '<tool_call>{"name":"read","arguments":{"path":"a"}}</tool_call>';
    const events = [
      ...t.push([{ type: "text", delta: written }]),
      ...t.push([{ type: "tool_call_delta", index: 0, id: "c1", name: "bash", argumentsDelta: '{"command":' }]),
      ...t.push([{ type: "tool_call_delta", index: 0, argumentsDelta: '"ls"}' }]),
      ...t.push([{ type: "text", delta: written }]),
      ...t.push([{ type: "finish", reason: "tool_calls" }]),
    ];
    expect(native.seen).toBe(true);
    expect(events.flatMap((e) => (e.type === "tool_call_delta" ? [[e.index, e.name]] : []))).toEqual([
      [0, "bash"],
      [0, undefined],
    ]);
    expect(events.flatMap((e) => (e.type === "text" ? [e.delta] : [])).join("")).toBe(written + written);
    // The turn's next step reads no text for calls.
    expect(textToolCallsFor([{ type: "function", function: { name: "read", description: "", parameters: {} } }], {}, native)).toBeNull();
  });

  test("text is read for calls only from a server that may not parse them: its family's word, or the connection's", () => {
    const tools: ToolSpec[] = [{ type: "function", function: { name: "read", description: "", parameters: {} } }];
    const reads = (endpoint: Parameters<typeof textToolCallsFor>[1]) => textToolCallsFor(tools, endpoint, { seen: false }) !== null;
    for (const dialect of ["ollama", "llamacpp", "vllm", "lmstudio", "generic"] as const) expect({ dialect, reads: reads({ dialect }) }).toEqual({ dialect, reads: true });
    for (const dialect of ["openai", "anthropic", "gemini", "mistral", "deepseek", "groq", "openrouter", "lembas"] as const) expect({ dialect, reads: reads({ dialect }) }).toEqual({ dialect, reads: false });
    expect(reads({})).toBe(true);
    expect(reads({ dialect: "ollama", textToolCalls: false })).toBe(false);
    expect(reads({ dialect: "openai", textToolCalls: true })).toBe(true);
  });

  test("held text is given before an error ends the stream", () => {
    const t = new TextToolCalls(OFFERED);
    const events = [...t.push([{ type: "text", delta: "ok <tool_call>{" }]), ...t.push([{ type: "error", error: new Error("cut") as never }])];
    expect(events.map((e) => e.type)).toEqual(["text", "text", "error"]);
    expect(collect(events).text).toBe("ok <tool_call>{");
  });

  test("splitJsonValues takes whole values only", () => {
    expect(splitJsonValues('{"a":"}"} ; [1,2]')).toEqual(['{"a":"}"}', "[1,2]"]);
    expect(splitJsonValues('{"a":1} trailing')).toBeNull();
    expect(splitJsonValues('{"a":')).toBeNull();
  });
});

describe("text tool calls through the real client", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  const spec = (name: string): ToolSpec => ({ type: "function", function: { name, description: name, parameters: { type: "object" } } });

  async function stream(text: string[], offered: ToolSpec[]): Promise<ModelEvent[][]> {
    const model = await startModel({ replies: [{ text, chunkDelayMs: 2 }] });
    closers.push(() => model.close());
    const endpoint: Endpoint = { name: "test", baseUrl: model.url, apiKey: null };
    const batches: ModelEvent[][] = [];
    const request = { model: "m", messages: [{ role: "user" as const, content: "hi" }], effort: "off" as const };
    const calls = textToolCallsFor(offered, endpoint, { seen: false });
    for await (const batch of streamChatBatches(endpoint, request)) batches.push(calls ? calls.push(batch) : batch);
    return batches;
  }

  test("a call in the streamed text comes out as a tool call, finishing as tool_calls", async () => {
    const batches = await stream(["Let me look.", " <tool", '_call>\n{"name": "read", ', '"arguments": {"path": "a.ts"}}\n</tool_call>'], [spec("read"), spec("write")]);
    const out = collect(batches.flat());
    expect(out).toEqual({ text: "Let me look. ", calls: [{ index: 0, name: "read", args: { path: "a.ts" } }], finish: "tool_calls" });
    expect(batches.flat().filter((e) => e.type === "text").some((e) => e.type === "text" && e.delta.includes("tool_call"))).toBe(false);
  });

  test("each format, streamed in three-character chunks, comes out as the same call", async () => {
    const args = { path: "a.ts" };
    const formats = [
      `<tool_call>{"name": "read", "arguments": ${JSON.stringify(args)}}</tool_call>`,
      `\`\`\`json\n{"name": "read", "arguments": ${JSON.stringify(args)}}\n\`\`\``,
      `<|python_tag|>{"name": "read", "parameters": ${JSON.stringify(args)}}`,
      `{"type": "function", "name": "read", "parameters": ${JSON.stringify(args)}}`,
      `[read(path="a.ts")]`,
      `[TOOL_CALLS][{"name": "read", "arguments": ${JSON.stringify(args)}}]`,
      `[TOOL_CALLS]read[ARGS]${JSON.stringify(args)}`,
      "<tool_call>\n<function=read>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>",
    ];
    for (const format of formats) {
      const out = collect((await stream(format.match(/[\s\S]{1,3}/g) ?? [], [spec("read")])).flat());
      expect({ format, ...out }).toEqual({ format, text: "", calls: [{ index: 0, name: "read", args }], finish: "tool_calls" });
    }
  });

  test("with no tools offered nothing is looked for: the text is the client's own", async () => {
    const text = ['<tool_call>{"name": "read", "arguments": {}}</tool_call>'];
    expect(textToolCallsFor([], {}, { seen: false })).toBeNull();
    const out = collect((await stream(text, [])).flat());
    expect(out).toEqual({ text: text[0] ?? "", calls: [], finish: "end_turn" });
  });
});
