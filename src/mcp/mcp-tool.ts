import { z } from "zod";
import type { Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import { boundedForFrontEnds } from "./result.ts";
import { primeSchemas, type PermissionClass, type Tool, type ToolContext, type ToolKind, type ToolResult } from "../tools/tool.ts";

/** The arguments of any MCP tool: an object, checked against its JSON schema by the server itself. */
const argumentsSchema = () => z.record(z.string(), z.unknown());
type ArgumentsSchema = ReturnType<typeof argumentsSchema>;
type Arguments = z.infer<ArgumentsSchema>;
let made: ArgumentsSchema | undefined;

/** The longest description of a server's tool the model is sent. */
const MAX_DESCRIPTION = 4_000;
/** The longest view of the arguments in a title. */
const MAX_TITLE_ARGS = 60;

/** What a server's tool is handed: the call (its signal) and the session's model (whether images it returns can be shown to it). */
export type McpCall = (args: Arguments, ctx: ToolContext<"model">) => Promise<ToolResult>;

/**
 * One of a server's tools as our Tool, offered as `name`: the server's JSON schema given to the
 * model as it is (primed, so inputSchema never converts the zod one), its description, exec unless
 * the server marks it read-only, and a title naming the server.
 */
export function mcpTool(name: string, server: string, definition: McpToolDefinition, call: McpCall): Tool<ArgumentsSchema, "model"> {
  const readOnly = definition.annotations?.readOnlyHint === true;
  made ??= argumentsSchema();
  const tool: Tool<ArgumentsSchema, "model"> = {
    name,
    description: describe(server, definition),
    schema: made,
    permission: (readOnly ? "read" : "exec") satisfies PermissionClass,
    kind: kindOf(definition),
    allowKey: name,
    needs: ["model"],
    title: (input) => `${server}: ${definition.name}${argsView(input)}`,
    execute: async (input, ctx) => boundedForFrontEnds(await call(input, ctx)),
  };
  primeSchemas([tool], { [name]: modelSchema(definition.inputSchema) });
  return tool;
}

function describe(server: string, definition: McpToolDefinition): string {
  const text = definition.description?.trim() || definition.annotations?.title || definition.title || `The ${definition.name} tool`;
  const capped = text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION)}…` : text;
  return `${capped}\n(From the MCP server "${server}".)`;
}

function kindOf(definition: McpToolDefinition): ToolKind {
  const hints = definition.annotations;
  if (hints?.readOnlyHint !== true) return "other";
  return hints.openWorldHint === true ? "fetch" : "read";
}

/** The server's schema as it gave it, without `$schema` (which some model APIs refuse). */
function modelSchema(schema: McpToolDefinition["inputSchema"]): Record<string, unknown> {
  const { $schema: _dropped, ...rest } = schema as Record<string, unknown>;
  return rest;
}

function argsView(input: Arguments): string {
  const text = JSON.stringify(input ?? {});
  if (text === "{}") return "";
  return ` ${text.length > MAX_TITLE_ARGS ? `${text.slice(0, MAX_TITLE_ARGS)}…` : text}`;
}
