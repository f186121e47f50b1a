import { z } from "zod";
import type { FileDiff, Tool, ToolContext } from "../tools/tool.ts";
import type { PermissionRequest } from "./interaction.ts";

/** The one tool whose input is a command line, run by a shell. */
export const COMMAND_TOOL = "bash";

/** The fields of a command tool's input an approval shows (bash's). */
const CommandInput = z.looseObject({ command: z.string(), description: z.string().optional() });

/** What a call would run or change, for the person asked to approve it. */
export async function whatItDoes(
  tool: Tool,
  input: unknown,
  ctx: Pick<ToolContext, "root" | "cwd">,
): Promise<Pick<PermissionRequest, "command" | "description" | "diffs">> {
  const diffs = await previewOf(tool, input, ctx);
  const command = tool.name === COMMAND_TOOL ? CommandInput.safeParse(input) : null;
  if (!command?.success) return diffs.length > 0 ? { diffs } : {};
  const description = command.data.description?.trim();
  return {
    command: { line: command.data.command, cwd: ctx.cwd },
    ...(description ? { description } : {}),
    ...(diffs.length > 0 ? { diffs } : {}),
  };
}

async function previewOf(tool: Tool, input: unknown, ctx: Pick<ToolContext, "root" | "cwd">): Promise<FileDiff[]> {
  if (!tool.preview) return [];
  try {
    return await tool.preview(input as z.infer<typeof tool.schema>, ctx);
  } catch {
    // The approval still shows the title and the input; the call itself will say what is wrong.
    return [];
  }
}
