// A request body's text, with its tools' specs serialized once a process: the very bytes
// JSON.stringify gives, whatever the body holds and wherever its tools are among its fields.
import { expect, test } from "bun:test";
import { bodyJson } from "../../src/model/body-json.ts";
import { requestBody, type ToolSpec } from "../../src/model/request.ts";
import { shapeBody } from "../../src/model/request-fields.ts";

const spec = (name: string): ToolSpec => ({
  type: "function",
  function: { name, description: `Does ${name} — "quoted", \\ and \u2028 kept`, parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
});
const tools = [spec("read"), spec("edit"), spec("bash")];

test("the text is JSON.stringify's, the tools anywhere among the fields, twice over the same specs", () => {
  const bodies: Record<string, unknown>[] = [
    requestBody({ model: "m", messages: [{ role: "user", content: "hi" }], tools, effort: "high", maxTokens: 100 }),
    requestBody({ model: "m", messages: [{ role: "user", content: "hi" }], tools, effort: "off" }, { body: { temperature: 0.2, top_p: undefined } }),
    { tools },
    { tools, model: "m" },
    { model: "m", tools },
    { model: "m", tools: [tools[2], tools[0]], stream: true, extra: undefined },
    { model: "m", tools: [] },
    { model: "m", tools: [1, "two"] },
    { model: "m", tools: null },
    { model: "m", tools: [tools[0], [tools[1]]] },
  ];
  for (const body of [...bodies, ...bodies]) expect(bodyJson(body)).toBe(JSON.stringify(body));
});

test("a connection's own tools in its body are sent as it wrote them", () => {
  const own = [{ type: "function", function: { name: "theirs", description: "", parameters: {} } }];
  const body = requestBody({ model: "m", messages: [], tools, effort: "off" }, { body: { tools: own } });
  expect(JSON.parse(shapeBody(body, new Set(), undefined).text).tools).toEqual(own);
  expect(shapeBody(body, new Set(), undefined).text).toBe(JSON.stringify(body));
});
