import { z } from "zod";
import { lazily } from "../lazy.ts";
import type { FileDiff, Tool, ToolContext } from "../tools/tool.ts";
import type { PermissionDecision, PermissionRequest } from "./interaction.ts";

/** The one tool whose input is a command line, run by a shell. */
export const COMMAND_TOOL = "bash";

/** The fields of a command tool's input an approval shows (bash's). */
const commandInput = lazily(() => z.looseObject({ command: z.string(), description: z.string().optional() }));

/** What a call would run or change, for the person asked to approve it. */
export async function whatItDoes(
  tool: Tool,
  input: unknown,
  ctx: ToolContext,
): Promise<Pick<PermissionRequest, "command" | "description" | "diffs">> {
  const diffs = await previewOf(tool, input, ctx);
  const command = tool.name === COMMAND_TOOL ? commandInput().safeParse(input) : null;
  if (!command?.success) return diffs.length > 0 ? { diffs } : {};
  const description = command.data.description?.trim();
  return {
    command: { line: command.data.command, cwd: ctx.cwd },
    ...(description ? { description } : {}),
    ...(diffs.length > 0 ? { diffs } : {}),
  };
}

async function previewOf(tool: Tool, input: unknown, ctx: ToolContext): Promise<FileDiff[]> {
  if (!tool.preview) return [];
  try {
    return await tool.preview(input as z.infer<typeof tool.schema>, ctx);
  } catch {
    // The approval still shows the title and the input; the call itself will say what is wrong.
    return [];
  }
}

/** A card the person answered No to, as it is shown everywhere: their answer, not a rule's. */
export const DENIED_BY_YOU = "denied by you";

/**
 * What the model reads of a denied card: the person's No with their words, or, when nobody could
 * answer, a refusal with why it asked and why nobody answered.
 */
export function deniedResult(toolName: string, reason: string, answer: PermissionDecision): string {
  if (answer.unanswered) return `Refused: ${reason}${answer.feedback ? `; ${answer.feedback}` : ""}.`;
  const why = answer.feedback ? ` They said: ${answer.feedback}` : "";
  return `The person denied this ${toolName} call.${why} ${DENIED_NEXT}`;
}

const DENIED_NEXT = "Do not repeat it; adjust your approach.";
const DENIED = new RegExp(`^The person denied this \\S+ call\\.(?: They said: ([\\s\\S]*?))? ${DENIED_NEXT.replace(/[.;]/g, "\\$&")}$`);

/** A stored result that is the person's denial (deniedResult's): their words, if any; null for any other result. */
export function personDenial(output: string): { feedback?: string } | null {
  const match = DENIED.exec(output);
  if (!match) return null;
  return match[1] ? { feedback: match[1] } : {};
}
