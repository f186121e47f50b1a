import { z } from "zod";
import type { Need, ToolCallContext, ToolContext } from "./capabilities.ts";
import { MAX_RESULT_CHARS } from "../result-bound.ts";

export type { Answer, Capabilities, CommandSetup, Need, PlanOutcome, Question, QuestionOutcome, ReadState, SubAgentAnswer, TodoItem, ToolCallContext, ToolContext } from "./capabilities.ts";

/** What a tool may do, which decides whether it runs, asks, or is refused in a mode. */
export type PermissionClass = "read" | "write" | "exec" | "none";

/** ACP's tool kinds, as the client shows them. */
export type ToolKind = "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "switch_mode" | "other";

/** A file a tool is about to change, with its content before and after (for diffs and undo). */
export type FileDiff = { path: string; oldText: string | null; newText: string };

/** What a tool gives back: the text the model sees, and what clients may show besides. */
export type ToolResult = {
  output: string;
  isError?: boolean;
  /** Files written, shown as diffs by clients (ACP tool_call_update content of type diff). */
  diffs?: FileDiff[];
  /** Images for a vision model (read of an image file). */
  images?: { mimeType: string; data: string /* base64 */; path: string }[];
  /** Anything structured a client may want (exit code, match count, …). */
  meta?: Record<string, unknown>;
};

/**
 * One tool: its name (the model sees it), a zod schema for its input, a permission class, an ACP
 * kind, the capabilities it uses (`needs`: what it is handed, and all it is handed), a title for
 * clients, and what it does. `paths` lists the files the call touches so the permission check can
 * ask for paths outside the project or protected ones; `preview` shows an approval what the call
 * would change.
 */
export type Tool<S extends z.ZodType = z.ZodType, N extends Need = Need> = {
  name: string;
  description: string;
  /**
   * A description of a line or two for models with a small window (engine/toolset.ts), which are
   * sent it with a schema stripped of its field descriptions. A tool without one is not offered them.
   */
  brief?: string;
  schema: S;
  permission: PermissionClass;
  kind: ToolKind;
  /** The capabilities the tool uses (capabilities.ts): its context has these and no others. */
  needs: readonly N[];
  title(input: z.infer<S>, ctx: Pick<ToolCallContext, "root" | "cwd">): string;
  paths?(input: z.infer<S>, ctx: Pick<ToolCallContext, "root" | "cwd">): string[];
  /** The hosts the call reaches (fetch): one not yet allowed in the session asks. */
  hosts?(input: z.infer<S>): string[];
  /** What "allow for this session" keeps for a call of this tool that is not a command line (an MCP tool's: its name). */
  allowKey?: string;
  /** Reaches outside as fetch does (web_search): asks in every mode but auto until its allowKey is allowed for the session. */
  asksFirst?: boolean;
  /** True for a call that must run alone though its class only reads (task with an agent that may write). */
  runsAlone?(input: z.infer<S>): boolean;
  /** The most calls of this tool one step runs at once (none: no limit); the others run after. */
  atOnce?: number;
  /** How the model sees what was left out of a result too long to send whole ("read on with offset"). */
  more?: string;
  /** The files the call would change, before and after, for the person approving it. Only reads. */
  preview?(input: z.infer<S>, ctx: ToolContext<N>): Promise<FileDiff[]>;
  /** Why the call cannot run whatever the person says (fetch: a private address), found before asking them; null: ask. */
  refusedBeforeAsking?(input: z.infer<S>, ctx: ToolContext<N>): Promise<string | null>;
  execute(input: z.infer<S>, ctx: ToolContext<N>): Promise<ToolResult>;
};

/** A tool as it is written: its input schema is a function, called the first time it is needed. */
export type ToolDefinition<S extends z.ZodType, N extends Need> = Omit<Tool<S, N>, "schema"> & { schema: () => S };

/**
 * Makes a tool. Its zod schema is built on first use (a call to validate, or the JSON schema when
 * the build has not stamped it in): a process that starts up builds none, and allocates less.
 */
export function defineTool<S extends z.ZodType, const N extends Need = never>(definition: ToolDefinition<S, N>): Tool<S, N> {
  const { schema: make, ...rest } = definition;
  let made: S | undefined;
  return {
    ...rest,
    get schema() {
      made ??= make();
      return made;
    },
  };
}

export { MAX_RESULT_CHARS };

const DEFAULT_MORE = "call the tool again on a smaller part to see the rest";

/**
 * Caps a tool's text output, keeping the head and the tail and saying how much was left out and
 * how to see it (`more`: the tool's own way, else a general one).
 */
export function capOutput(text: string, maxChars = MAX_RESULT_CHARS, more = DEFAULT_MORE): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.6);
  const tail = maxChars - head;
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n\n[… ${omitted} characters left out: ${more} …]\n\n${text.slice(text.length - tail)}`;
}

const schemas = new WeakMap<Tool, Record<string, unknown>>();

/** Takes schemas made ahead of time (by the build) for these tools, so inputSchema need not make them. */
export function primeSchemas(tools: readonly Tool[], made: Record<string, Record<string, unknown>>): void {
  for (const tool of tools) {
    const schema = made[tool.name];
    if (schema) schemas.set(tool, schema);
  }
}

/** Whether the tool's schema is made already (inputSchema costs nothing then). */
export function hasSchema(tool: Tool): boolean {
  return schemas.has(tool);
}

/** The JSON schema the model is given for a tool's input (made once per tool). */
export function inputSchema(tool: Tool): Record<string, unknown> {
  const known = schemas.get(tool);
  if (known) return known;
  const schema = withoutSafeBounds(z.toJSONSchema(tool.schema, { target: "draft-7", io: "input" })) as Record<string, unknown>;
  delete schema.$schema;
  schemas.set(tool, schema);
  return schema;
}

/** zod gives every integer JavaScript's safe bounds: ±9007199254740991 says nothing and costs tokens. */
function withoutSafeBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSafeBounds);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === "maximum" && value === Number.MAX_SAFE_INTEGER) || (key === "minimum" && value === Number.MIN_SAFE_INTEGER)) continue;
    out[key] = withoutSafeBounds(value);
  }
  return out;
}
