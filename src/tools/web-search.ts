import { z } from "zod";
import description from "./web-search.txt" with { type: "text" };
import { fail, ok } from "./result.ts";
import { defineTool } from "./tool.ts";

const schema = () => z.object({ query: z.string().min(1).describe("What to search for, in words a search engine takes") });

/**
 * web_search: a search run by the provider's own search tool or by the MCP tool config.yaml names
 * (engine/search-route.ts); offered only where one of them exists. It reaches outside as fetch does,
 * so it asks as fetch does: in every mode but auto, once, or for the session.
 */
export const webSearchTool = defineTool({
  name: "web_search",
  description,
  schema,
  permission: "read",
  needs: ["search"],
  // ACP's kind for retrieving external data, as an open-world MCP tool's (mcp-tool.ts).
  kind: "fetch",
  allowKey: "web_search",
  asksFirst: true,
  title: (input) => `Search the web for ${JSON.stringify(input.query)}`,
  async execute(input, ctx) {
    const found = await ctx.search.web(input.query);
    if (ctx.signal.aborted) return fail("Cancelled.");
    if ("problem" in found) return fail(found.problem);
    return ok(searchText(found.text, found.sources), { meta: { via: found.via, sources: found.sources } });
  },
});

/** The answer, then its sources one a line (title and URL): what the model reads and the tool card shows. */
export function searchText(text: string, sources: readonly { url: string; title: string }[]): string {
  const answer = text.trim() || "(the search wrote no answer)";
  if (sources.length === 0) return `${answer}\n\nSources: none were given.`;
  const lines = sources.map((s, i) => `${i + 1}. ${s.title ? `${s.title} — ` : ""}${s.url}`);
  return `${answer}\n\nSources:\n${lines.join("\n")}`;
}
