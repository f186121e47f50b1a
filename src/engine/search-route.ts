import { modelApi } from "../model/apis.ts";
import type { ResolvedModel } from "../model/resolved.ts";
import { providerSearch, providerSearchName } from "../model/provider-search.ts";
import type { ToolCallContext, WebSearchResult } from "../tools/capabilities.ts";
import { inputSchema, type Tool, type ToolResult } from "../tools/tool.ts";

/** How a session's web_search runs: the MCP tool config.yaml names, or the provider's own search. */
export type WebSearchRoute = { via: string; run(query: string, call: ToolCallContext): Promise<WebSearchResult> };

/**
 * A search is a side request: tried a few times over seconds, as a title is, not a turn's minutes.
 */
const SEARCH_RETRY = { retries: 2, maxTotalMs: 20_000 };

/**
 * The route of the session's web_search, or null when it has none (web_search is not offered
 * then). config.yaml's `web_search: mcp__NAME__TOOL` wins where that tool is among the session's
 * MCP tools; else the provider's own search where the model's API has one (Responses'
 * `web_search`, Messages' web search tool).
 */
export function webSearchRoute(named: string | null, model: ResolvedModel, mcp: readonly Tool[]): WebSearchRoute | null {
  const tool = named === null ? undefined : mcp.find((t) => t.name === named);
  if (tool) return mcpRoute(tool);
  const api = modelApi(model.endpoint, model.servedId);
  const name = providerSearchName(api);
  if (name === null) return null;
  return {
    via: name,
    async run(query, call) {
      const found = await providerSearch(api, model.endpoint, model.servedId, query, { signal: call.signal, retry: SEARCH_RETRY, rejectedFields: model.rejectedFields });
      if ("error" in found) return { problem: `The search failed: ${found.error.message}.` };
      return { text: found.text, sources: found.sources, via: name };
    },
  };
}

/** A search by an MCP server's tool: the query given as the one text argument its schema asks for. */
function mcpRoute(tool: Tool): WebSearchRoute {
  return {
    via: tool.name,
    async run(query, call) {
      let result: ToolResult;
      try {
        result = await tool.execute({ [queryField(tool)]: query }, { ...call, model: { vision: false } } as Parameters<Tool["execute"]>[1]);
      } catch (error) {
        return { problem: `The search by ${tool.name} failed: ${error instanceof Error ? error.message : String(error)}.` };
      }
      if (result.isError) return { problem: `The search by ${tool.name} failed: ${result.output}` };
      // The server's own text names its results; lembas adds the links it can find in it.
      return { text: result.output, sources: linksIn(result.output), via: tool.name };
    },
  };
}

/** The argument an MCP search tool takes its query as: `query` unless its schema names one other text field. */
function queryField(tool: Tool): string {
  const schema = inputSchema(tool) as { properties?: Record<string, { type?: string }>; required?: string[] };
  const properties = schema?.properties ?? {};
  if ("query" in properties) return "query";
  const texts = Object.keys(properties).filter((k) => properties[k]?.type === "string");
  const required = texts.filter((k) => schema?.required?.includes(k));
  return required[0] ?? texts[0] ?? "query";
}

/** The http(s) links of a text, each once, with the text of a markdown link as its title. */
export function linksIn(text: string): { url: string; title: string }[] {
  const out: { url: string; title: string }[] = [];
  for (const match of text.matchAll(/\[([^\]\n]{1,200})\]\((https?:\/\/[^\s)]+)\)|(https?:\/\/[^\s<>()"'\]]+)/g)) {
    const url = (match[2] ?? match[3] ?? "").replace(/[.,;:]+$/, "");
    if (url === "" || out.some((s) => s.url === url)) continue;
    out.push({ url, title: match[1] ?? "" });
  }
  return out;
}
