import type { Mode } from "../config/schema.ts";
import type { ToolSpec } from "../model/request.ts";
import { inputSchema, type Tool } from "../tools/tool.ts";
import { modeAction } from "./permissions.ts";

/**
 * The tools the model is given in a mode: none that the mode refuses outright; `library` only
 * when a library is configured and holds something.
 */
export function toolsFor(tools: readonly Tool[], mode: Mode, library?: { available(): boolean }): Tool[] {
  return tools.filter((t) => {
    if (t.name === "plan_submit") return mode === "plan";
    if (t.name === "library" && library?.available() !== true) return false;
    return modeAction(mode, t.permission) !== "deny";
  });
}

/** The tools as the model is sent them: name, description, and the JSON schema of the input. */
export function toolSpecs(tools: readonly Tool[]): ToolSpec[] {
  return tools.map((t) => ({ type: "function" as const, function: { name: t.name, description: t.description, parameters: inputSchema(t) } }));
}
