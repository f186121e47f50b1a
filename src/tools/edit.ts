import { z } from "zod";
import { unifiedDiff } from "./diff.ts";
import description from "./edit.txt" with { type: "text" };
import { displayPath, resolvePath } from "./paths.ts";
import { applySpans, locate } from "./replace.ts";
import { fail, ok } from "./result.ts";
import { readForEdit, readText, writeWhole } from "./text-file.ts";
import { withDiagnostics } from "./edit-diagnostics.ts";
import { defineTool, type ToolContext, type ToolResult } from "./tool.ts";

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    path: z.string().min(1),
    old_string: z.string().min(1),
    new_string: z.string(),
    replace_all: z.boolean().optional(),
  });

/** edit: an exact string replacement in a file read before; CRLF files keep their line endings. */
export const editTool = defineTool({
  name: "edit",
  description,
  brief: "Replaces old_string, copied exactly from a file read before (without line numbers), with new_string. old_string must occur once, unless replace_all.",
  schema,
  permission: "write",
  needs: ["files", "changes", "fileAccess", "lsp"],
  kind: "edit",
  title: (input, ctx) => `Edit ${displayPath(resolvePath(input.path, ctx.cwd), ctx.root)}`,
  paths: (input, ctx) => [resolvePath(input.path, ctx.cwd)],
  async preview(input, ctx) {
    const abs = resolvePath(input.path, ctx.cwd);
    const read = await readText(abs, ctx);
    if ("error" in read) return [];
    const change = planChange(read.text, input.old_string, input.new_string, input.replace_all ?? false, abs);
    return "output" in change ? [] : [{ path: abs, oldText: read.text, newText: change.newText }];
  },
  // An edit that cannot apply is not put to the person: they would approve a change that is not made.
  async refusedBeforeAsking(input, ctx) {
    const planned = await plannedEdit(input, ctx);
    return "result" in planned ? planned.result.output : null;
  },
  async execute(input, ctx) {
    const planned = await plannedEdit(input, ctx);
    if ("result" in planned) return planned.result;
    const { abs, shown, content, held, change } = planned;
    const failed = await writeWhole(abs, change.newText, shown, { text: content, held }, ctx);
    if (failed) return fail(failed);
    const what = change.count === 1 ? "1 replacement" : `${change.count} replacements`;
    const result = ok(`Edited ${shown} (${what}):\n${unifiedDiff(content, change.newText, { maxLines: 60 })}`, {
      diffs: [{ path: abs, oldText: content, newText: change.newText }],
      meta: { replacements: change.count },
    });
    return await withDiagnostics(result, abs, shown, change.newText, ctx);
  },
});

type Change = { newText: string; count: number };

/** The change the call makes to the file as it is now, or why it cannot be made. */
async function plannedEdit(
  input: { path: string; old_string: string; new_string: string; replace_all?: boolean | undefined },
  ctx: ToolContext<"files" | "fileAccess">,
): Promise<{ abs: string; shown: string; content: string; held: boolean; change: Change } | { result: ToolResult }> {
  const abs = resolvePath(input.path, ctx.cwd);
  const shown = displayPath(abs, ctx.root);
  if (input.old_string === input.new_string) return { result: fail("old_string and new_string are the same: there is nothing to change.") };
  const read = await readForEdit(abs, shown, ctx);
  if ("problem" in read) return { result: fail(read.problem) };
  const change = planChange(read.text, input.old_string, input.new_string, input.replace_all ?? false, shown);
  if ("output" in change) return { result: change };
  return { abs, shown, content: read.text, held: read.held, change };
}

/** The new content, or a failed result the model can act on. */
export function planChange(content: string, oldString: string, newString: string, replaceAll: boolean, shown: string): Change | ToolResult {
  const found = locate(content, oldString, newString, replaceAll, shown);
  if ("problem" in found) return fail(found.problem);
  return { newText: applySpans(content, found.spans), count: found.spans.length };
}
