import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type Tool as McpToolDefinition, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** The most tools taken from one server. */
const MAX_TOOLS = 500;
/** The most refused tools named in the notice; the rest are counted. */
const MAX_NAMED = 5;

/** A tool the server listed that cannot be offered, and why, in words. */
export type RefusedTool = { name: string; why: string };

/**
 * A tools/list page as far as it must hold together; its tools are checked one by one, so that
 * one malformed tool is left out alone instead of the whole server (the SDK's listTools takes
 * the page all or nothing). Accepted as anything first: a page that is not one is said in words.
 */
const pageSchema = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** The server's tools (up to MAX_TOOLS), its pages followed; those that are not valid MCP tools are refused. */
export async function listTools(client: Client, signal: AbortSignal, timeout: number): Promise<{ tools: McpToolDefinition[]; refused: RefusedTool[] }> {
  if (!client.getServerCapabilities()?.tools) return { tools: [], refused: [] };
  const tools: McpToolDefinition[] = [];
  const refused: RefusedTool[] = [];
  let cursor: string | undefined;
  let place = 0;
  do {
    const answer = await client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, z.unknown(), { signal, timeout });
    const page = pageSchema.safeParse(answer);
    if (!page.success) throw new Error(`its tool list could not be read: ${issueWords(page.error)}`);
    for (const raw of page.data.tools) {
      place++;
      const tool = ToolSchema.safeParse(raw);
      if (tool.success) tools.push(tool.data);
      else refused.push({ name: nameOf(raw, place), why: issueWords(tool.error) });
    }
    cursor = page.data.nextCursor;
  } while (cursor && tools.length < MAX_TOOLS);
  return { tools: tools.slice(0, MAX_TOOLS), refused };
}

/** The notice for a server's refused tools: each named (the first few) with why, the others offered. */
export function refusedNotice(server: string, refused: readonly RefusedTool[]): string {
  const named = refused.slice(0, MAX_NAMED).map((r) => `${r.name} (${r.why})`);
  const more = refused.length > MAX_NAMED ? ` and ${refused.length - MAX_NAMED} more` : "";
  const count = refused.length === 1 ? "a tool" : `${refused.length} tools`;
  return `MCP server "${server}" lists ${count} that ${refused.length === 1 ? "is" : "are"} not a valid MCP tool, left out: ${named.join("; ")}${more}; its other tools are offered`;
}

/** A refused tool's name as it can be shown (quoted, control characters escaped), or its place in the list. */
function nameOf(raw: unknown, place: number): string {
  const name = typeof raw === "object" && raw !== null && "name" in raw ? raw.name : undefined;
  if (typeof name !== "string" || name === "") return `the tool at place ${place}, without a name`;
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
}

/** A zod failure's first issue in words: where in the value, and what is wrong. */
function issueWords(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  if (!issue) return "it does not have the form MCP gives it";
  const where = issue.path.map(String).join(".");
  return where ? `${where}: ${issue.message}` : issue.message;
}
