import type { ResolvedModel } from "../model/resolved.ts";
import type { ToolSpec } from "../model/request.ts";
import { type AgentListing, taskToolWith } from "../tools/task.ts";
import { inputSchema, type Tool } from "../tools/tool.ts";

/**
 * A window this small (tokens) gets the tools that have a brief, with their briefs: what is sent
 * before the person's first word stays under 2,000 tokens. An unknown window is not small: the
 * servers that say nothing are mostly hosted ones with large windows, local ones report theirs
 * (and config.yaml's `context` sets it), and compaction assumes 32k for it too.
 */
export const SMALL_WINDOW = 16_384;

export function smallWindow(model: Pick<ResolvedModel, "contextLength">): boolean {
  return model.contextLength !== null && model.contextLength <= SMALL_WINDOW;
}

/**
 * The tools a model is offered: the same in every mode (a mode refuses what it does not allow),
 * so that the tools, which servers render near the prompt's start, stay the same all session
 * (but for `library`, which comes when the first document is added). `skill` comes only when the
 * session found skills the model may load (a session without any sends what it sent before skills
 * were there), and not in a small window (it has no brief). The session's MCP tools come
 * after the built-ins, in a small window too (they have no brief, but the person configured their
 * servers for this). With custom agents, `task` is the one that lists them (a session without any
 * sends the task tool it sent before agents were there). `web_search` comes only where the session
 * has a search to run it (engine/search-route.ts): the provider's own, or an MCP tool config.yaml names.
 * `lsp` comes where a language server runs, or may start, for the project's files.
 */
export function offeredTools(
  tools: readonly Tool[],
  model: Pick<ResolvedModel, "contextLength">,
  has: { library?: { available(): boolean; covers?(tool: string): boolean } | undefined; code?: boolean; skills?: boolean; agents?: readonly AgentListing[]; webSearch?: boolean; lsp?: boolean } = {},
  mcp: readonly Tool[] = [],
): Tool[] {
  const { library } = has;
  const small = smallWindow(model);
  // `library` only when a library is configured and holds something.
  const searchable = library?.available() === true;
  // The account's library tool on its instance's /mcp is what `library` calls: not offered twice.
  const covered = (t: Tool) => searchable && library?.covers?.(t.name) === true;
  const wanted = (t: Tool) =>
    (t.name !== "library" || searchable) &&
    (t.name !== "skill" || has.skills === true) &&
    (t.name !== "code_search" || has.code === true) &&
    (t.name !== "web_search" || has.webSearch === true) &&
    (t.name !== "lsp" || has.lsp === true);
  const agents = has.agents ?? [];
  const task = (t: Tool) => (t.name === "task" && agents.length > 0 ? taskToolWith(agents) : t);
  return [...tools.filter((t) => (!small || t.brief !== undefined) && wanted(t)).map(task), ...mcp.filter((t) => !covered(t))];
}

const full = new WeakMap<Tool, ToolSpec>();
const brief = new WeakMap<Tool, ToolSpec>();

/** The specs the model is sent for these tools (made once per tool and size). */
export function toolSpecs(tools: readonly Tool[], model: Pick<ResolvedModel, "contextLength">): ToolSpec[] {
  const small = smallWindow(model);
  return tools.map((tool) => {
    const cache = small && tool.brief !== undefined ? brief : full;
    const known = cache.get(tool);
    if (known) return known;
    const spec: ToolSpec =
      cache === brief
        ? { type: "function", function: { name: tool.name, description: tool.brief ?? tool.description, parameters: leanSchema(inputSchema(tool), BRIEF_LEAVES_OUT) as Record<string, unknown> } }
        : { type: "function", function: { name: tool.name, description: tool.description, parameters: leanSchema(inputSchema(tool), BOUNDS) as Record<string, unknown> } };
    cache.set(tool, spec);
    return spec;
  });
}

/**
 * What every schema sent leaves out: the bounds of lengths, counts and numbers. The input is checked
 * against the whole schema when the call comes, and a call out of bounds is told which bound, so a
 * model that needs one learns it then; the rest never pay for them.
 */
const BOUNDS = new Set(["minLength", "maxLength", "minItems", "maxItems", "minimum", "maximum"]);
/** What a brief schema leaves out besides: the fields' descriptions (a brief says what matters). */
const BRIEF_LEAVES_OUT = new Set([...BOUNDS, "description"]);

/** A JSON schema without the keywords named (a property named like one stays). */
function leanSchema(node: unknown, leftOut: ReadonlySet<string>): unknown {
  if (Array.isArray(node)) return node.map((item) => leanSchema(item, leftOut));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (leftOut.has(key) && typeof value !== "object") continue;
    out[key] = key === "properties" ? mapValues(value, (v) => leanSchema(v, leftOut)) : leanSchema(value, leftOut);
  }
  return out;
}

function mapValues(node: unknown, f: (value: unknown) => unknown): unknown {
  if (typeof node !== "object" || node === null) return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, f(v)]));
}
