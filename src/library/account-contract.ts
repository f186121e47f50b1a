/**
 * What lembas relies on of an instance for the account's library, since the spec says no more
 * (README: "The account's library"):
 *
 * - The token's scopes: `/api/v1/instance` (with the device token) answers `token.scopes`, an array
 *   of strings; a top-level `scopes` array is taken too. The token has the library when they hold
 *   "library". When the answer lists no scopes at all, the instance's `/mcp` is asked instead: the
 *   token has the library when its tools list a library tool.
 * - A library tool: one named `library_search`, `search_library` or `library`, else the first whose
 *   name starts with `library`, that takes a string query: its input schema's `query` (or `q`),
 *   else its one required string property. A number property `limit` (or `top_k`, `k`,
 *   `max_results`) is given the number of passages wanted.
 * - Its result: passages, as structured content or as JSON text: `{ passages: [...] }`,
 *   `{ results: [...] }` or a bare array, each `{ text (or content, snippet), title?, url?, path?
 *   (or source, document), start_line?/startLine?, end_line?/endLine?, score? }`. A result that is
 *   plain text, not JSON, is one passage citing the instance.
 */
import { z } from "zod";
import { lazily } from "../lazy.ts";
import type { McpToolDefinition } from "../mcp/connection.ts";
import type { Passage } from "../tools/library-backend.ts";

export const LIBRARY_SCOPE = "library";

const PREFERRED_TOOLS = ["library_search", "search_library", "library"];
const QUERY_ARGS = ["query", "q"];
const LIMIT_ARGS = ["limit", "top_k", "k", "max_results"];

// The schemas here are made on first use: a process that never reaches an account's library builds none.
const instanceSchema = lazily(() => {
  const scopes = z.array(z.string());
  return z.object({ token: z.object({ scopes: scopes.optional() }).loose().optional(), scopes: scopes.optional() }).loose();
});

/** The token's scopes as `/api/v1/instance` lists them (`token.scopes`, else `scopes`); null when it lists none. */
export function tokenScopes(body: unknown): string[] | null {
  const parsed = instanceSchema().safeParse(body);
  if (!parsed.success) return null;
  return parsed.data.token?.scopes ?? parsed.data.scopes ?? null;
}

/** How the library tool is called: its name, and which of its arguments take the query and the limit. */
export type LibraryToolCall = { name: string; queryArg: string; limitArg: string | null };

const propertiesSchema = lazily(() =>
  z.object({ properties: z.record(z.string(), z.object({ type: z.unknown().optional() }).loose()).optional(), required: z.array(z.string()).optional() }).loose(),
);

/** Whether a tool of the instance's /mcp is named as a library tool is (its input aside). */
export function isLibraryToolName(name: string): boolean {
  return PREFERRED_TOOLS.includes(name) || name.startsWith("library");
}

/** The instance's library tool among its /mcp tools, or null when it has none that takes a query. */
export function libraryTool(tools: readonly McpToolDefinition[]): LibraryToolCall | null {
  const named = (name: string) => tools.filter((t) => t.name === name);
  const candidates = [...PREFERRED_TOOLS.flatMap(named), ...tools.filter((t) => isLibraryToolName(t.name) && !PREFERRED_TOOLS.includes(t.name))];
  for (const tool of candidates) {
    const call = callShape(tool);
    if (call) return call;
  }
  return null;
}

function callShape(tool: McpToolDefinition): LibraryToolCall | null {
  const schema = propertiesSchema().safeParse(tool.inputSchema);
  if (!schema.success) return null;
  const properties = schema.data.properties ?? {};
  const typed = (name: string, types: string[]) => {
    const type = properties[name]?.type;
    return typeof type === "string" && types.includes(type);
  };
  const requiredStrings = (schema.data.required ?? []).filter((name) => typed(name, ["string"]));
  const queryArg = QUERY_ARGS.find((name) => typed(name, ["string"])) ?? (requiredStrings.length === 1 ? requiredStrings[0] : undefined);
  if (!queryArg) return null;
  const limitArg = LIMIT_ARGS.find((name) => typed(name, ["integer", "number"])) ?? null;
  return { name: tool.name, queryArg, limitArg };
}

/** The arguments of one search. */
export function libraryArguments(call: LibraryToolCall, query: string, limit: number): Record<string, unknown> {
  return call.limitArg ? { [call.queryArg]: query, [call.limitArg]: limit } : { [call.queryArg]: query };
}

const listSchema = lazily(() => {
  const line = z.number().int().nonnegative();
  const item = z
    .object({
      text: z.string().optional(),
      content: z.string().optional(),
      snippet: z.string().optional(),
      title: z.string().optional(),
      url: z.string().optional(),
      path: z.string().optional(),
      source: z.string().optional(),
      document: z.string().optional(),
      start_line: line.optional(),
      startLine: line.optional(),
      end_line: line.optional(),
      endLine: line.optional(),
      score: z.number().optional(),
    })
    .loose();
  return z.union([
    z.array(item),
    z.object({ passages: z.array(item) }).transform((o) => o.passages),
    z.object({ results: z.array(item) }).transform((o) => o.results),
  ]);
});

/** The tool's answer as lembas got it: its text and its structured content, if any. */
export type LibraryAnswer = { text: string; structured?: unknown };

/**
 * The passages of an answer, best first, each citing its source as the instance named it. Throws
 * an Error whose message is the sentence when the answer is neither passages nor plain text.
 */
export function passagesOf(answer: LibraryAnswer, instance: string): Passage[] {
  const structured = answer.structured !== undefined ? listSchema().safeParse(answer.structured) : null;
  if (structured?.success) return toPassages(structured.data, instance);
  const json = parseJson(answer.text);
  if (json === undefined) {
    const text = answer.text.trim();
    return text ? [{ path: "", startLine: 0, endLine: 0, text, score: 0, citation: `the account's library on ${instance}` }] : [];
  }
  const parsed = listSchema().safeParse(json);
  if (!parsed.success) throw new Error(`the library on ${instance} answered something that is not passages`);
  return toPassages(parsed.data, instance);
}

function toPassages(items: z.infer<ReturnType<typeof listSchema>>, instance: string): Passage[] {
  return items.flatMap((item, i) => {
    const text = (item.text ?? item.content ?? item.snippet ?? "").trim();
    if (!text) return [];
    const startLine = item.startLine ?? item.start_line ?? 0;
    const endLine = item.endLine ?? item.end_line ?? startLine;
    const place = item.path ?? item.source ?? item.document;
    const lines = place && startLine > 0 ? `${place}:${startLine}-${endLine}` : place;
    const citation = [item.title, item.url, lines].filter((part) => part !== undefined && part !== "").join(" — ") || `the account's library on ${instance}`;
    return [{ path: place ?? item.url ?? "", startLine, endLine, text, score: item.score ?? 1 / (i + 1), citation }];
  });
}

function parseJson(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}
