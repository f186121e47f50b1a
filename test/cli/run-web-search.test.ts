// web_search run by Anthropic's web search tool (a Messages connection) and by an MCP tool named in
// config.yaml (any connection), through `lembas run` against the scripted model and a real MCP server.
// (On a Responses connection: run-responses.test.ts.)
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import type { FixtureRoute, RecordedBody, Replay } from "../support/fixture-route.ts";
import { messagesRoute } from "../support/messages-server.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { type ProjectSandbox, ROOT, projectSandbox, runInProject, runLembas } from "../support/run.ts";
import { ev, reply, textBlock, toolBlock } from "../model/fixtures/messages.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
let route: FixtureRoute;

const SERVER = join(ROOT, "test/support/mcp-server.ts");
const isSearch = (body: RecordedBody) => Array.isArray(body.tools) && body.tools.length === 1 && (body.tools[0] as { type?: string }).type === "web_search_20250305";
const isStep = (body: RecordedBody) => Array.isArray(body.tools) && body.tools.some((t: { input_schema?: unknown }) => t.input_schema !== undefined);

beforeEach(async () => {
  route = messagesRoute([], { body: reply(textBlock(0, "A title")) });
  model = await startModel({ routes: [route] });
  box = projectSandbox(model.url);
});
afterEach(async () => {
  await model.close();
  box.cleanup();
});

function config(lines: string): void {
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n${lines}`);
}

type Event = { type: string; [key: string]: unknown };
async function run(args: string[]): Promise<Event[]> {
  const result = await runInProject(box, ["--format", "json", ...args]);
  return result.stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Event);
}

/**
 * A reply of Anthropic's web search (docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool):
 * the server_tool_use block with its query, the web_search_tool_result block with the results, then
 * text whose citations_delta cites one of them.
 */
const searched = reply(
  ev("content_block_start", { index: 0, content_block: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} } }) +
    ev("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: '{"query":"bun 1.4 release"}' } }) +
    ev("content_block_stop", { index: 0 }) +
    ev("content_block_start", {
      index: 1,
      content_block: {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_1",
        content: [
          { type: "web_search_result", url: "https://bun.sh/blog/bun-v1.4", title: "Bun v1.4", encrypted_content: "Eq0…", page_age: "2 days ago" },
          { type: "web_search_result", url: "https://github.com/oven-sh/bun/releases", title: "Releases · oven-sh/bun", encrypted_content: "Fr1…" },
        ],
      },
    }) +
    ev("content_block_stop", { index: 1 }) +
    ev("content_block_start", { index: 2, content_block: { type: "text", text: "", citations: [] } }) +
    ev("content_block_delta", { index: 2, delta: { type: "citations_delta", citation: { type: "web_search_result_location", url: "https://bun.sh/blog/bun-v1.4", title: "Bun v1.4", cited_text: "Bun 1.4 is here", encrypted_index: "Eo8…" } } }) +
    ev("content_block_delta", { index: 2, delta: { type: "text_delta", text: "Bun 1.4 is out." } }) +
    ev("content_block_stop", { index: 2 }),
);

describe("web_search on a Messages connection", () => {
  test("run by a side request with only Anthropic's web search tool; the result lists the sources' titles and URLs", async () => {
    config("    api: messages\n");
    route.push(
      { body: reply(toolBlock(0, "toolu_s1", "web_search", '{"query":"bun 1.4 release"}'), "tool_use"), match: isStep } as Replay,
      { body: searched, match: isSearch } as Replay,
      { body: reply(textBlock(0, "Bun 1.4 is out, per its blog.")), match: isStep } as Replay,
    );
    const events = await run(["--mode", "auto", "is bun 1.4 out?"]);
    const search = route.requests.find((r) => isSearch(r.body))?.body;
    expect(search?.tools).toEqual([{ type: "web_search_20250305", name: "web_search", max_uses: 3, cache_control: { type: "ephemeral" } }]);
    expect(JSON.stringify(search?.messages)).toContain("bun 1.4 release");
    const end = events.find((e) => e.type === "tool_end" && e.name === "web_search");
    expect(end).toMatchObject({ isError: false, output: "Bun 1.4 is out.\n\nSources:\n1. Bun v1.4 — https://bun.sh/blog/bun-v1.4\n2. Releases · oven-sh/bun — https://github.com/oven-sh/bun/releases" });
    expect(events.at(-1)).toMatchObject({ type: "result", ok: true });
  });
});

describe("web_search by an MCP tool config.yaml names", () => {
  test("on a chat connection, web_search: mcp__notes__lookup runs that tool with the query as its one text argument, the links it gave listed as sources", async () => {
    config(`web_search: mcp__notes__lookup\nmcp:\n  notes:\n    command: ${process.execPath}\n    args: [${SERVER}]\n`);
    model.push(step({ toolCalls: [{ name: "web_search", arguments: { query: "lembas" } }] }), step({ text: "It is a word." }));
    const events = await run(["--mode", "auto", "what is lembas?"]);
    const end = events.find((e) => e.type === "tool_end" && e.name === "web_search");
    expect(end).toMatchObject({ isError: false });
    // Offered once, as web_search; the server's other tools as they are.
    const offered = JSON.stringify(model.requests.find((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0)?.body.tools);
    expect(offered).toContain('"name":"web_search"');
    expect(offered).toContain('"name":"mcp__notes__echo"');
    expect(offered).not.toContain('"name":"mcp__notes__lookup"');
    expect(String(end?.output)).toBe(
      "lembas: a word, as [The Word Dictionary](https://dictionary.example/lembas) defines it\n\nSources:\n1. The Word Dictionary — https://dictionary.example/lembas",
    );
  });

  test("a name that is no MCP tool of the session leaves a chat connection without web_search", async () => {
    config(`web_search: mcp__nowhere__search\n`);
    model.push(step({ text: "ok" }));
    await run(["hi"]);
    const sent = model.requests.find((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0)?.body;
    expect(JSON.stringify(sent?.tools)).toContain('"name":"read"');
    expect(JSON.stringify(sent?.tools)).not.toContain('"name":"web_search"');
  });

  test("lembas doctor says which MCP tool runs web_search, and a name that is no tool of a configured server as a fix line", async () => {
    const mcp = `mcp:\n  notes:\n    command: ${process.execPath}\n    args: [${SERVER}]\n`;
    config(`web_search: mcp__notes__lookup\n${mcp}`);
    const lines = async () => (await runLembas(box, ["doctor"], { cwd: box.project })).stdout.split("\n").filter((l) => l.includes("web_search"));
    expect(await lines()).toEqual(["ok   web_search: by mcp__notes__lookup"]);
    config(`web_search: mcp__notes__search\n${mcp}`);
    const [wrong] = await lines();
    expect(wrong).toStartWith('fix  web_search: mcp__notes__search is not one of the tools of "notes" (echo, read_note, lookup,');
    config(`web_search: mcp__elsewhere__search\n${mcp}`);
    expect((await lines())[0]).toStartWith('fix  web_search: mcp__elsewhere__search names no MCP server "elsewhere" — set web_search to one of the tools lembas mcp list shows');
  });

  test("config.yaml refuses a web_search that names no MCP tool, with a sentence saying the form", async () => {
    config(`web_search: google\n`);
    const result = await runInProject(box, ["hi"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("mcp__NAME__TOOL");
  });
});
