import { z } from "zod";
import { unifiedDiff } from "./diff.ts";
import description from "./multi-edit.txt" with { type: "text" };
import { displayPath, resolvePath } from "./paths.ts";
import { applySpans, locate, type Span } from "./replace.ts";
import { fail, ok } from "./result.ts";
import { readForEdit, readText, writeWhole } from "./text-file.ts";
import { withDiagnostics } from "./edit-diagnostics.ts";
import { defineTool, type ToolContext } from "./tool.ts";

/** The most edits one call takes: more is a rewrite, for write. */
const MAX_EDITS = 50;

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    path: z.string().min(1),
    edits: z
      .array(
        z.object({
          old_string: z.string().min(1),
          new_string: z.string(),
          replace_all: z.boolean().optional(),
        }),
      )
      .min(1)
      .max(MAX_EDITS),
  });

type Edit = { old_string: string; new_string: string; replace_all?: boolean | undefined };

/** multi_edit: several exact replacements in one file read before, written at once or not at all. */
export const multiEditTool = defineTool({
  name: "multi_edit",
  description,
  schema,
  permission: "write",
  needs: ["files", "changes", "fileAccess", "lsp"],
  kind: "edit",
  title: (input, ctx) => `Edit ${displayPath(resolvePath(input.path, ctx.cwd), ctx.root)} (${input.edits.length === 1 ? "1 edit" : `${input.edits.length} edits`})`,
  paths: (input, ctx) => [resolvePath(input.path, ctx.cwd)],
  async preview(input, ctx) {
    const abs = resolvePath(input.path, ctx.cwd);
    const read = await readText(abs, ctx);
    if ("error" in read) return [];
    const planned = planEdits(read.text, input.edits, abs);
    return "problem" in planned ? [] : [{ path: abs, oldText: read.text, newText: planned.newText }];
  },
  // Edits that cannot apply are not put to the person: they would approve a change that is not made.
  async refusedBeforeAsking(input, ctx) {
    const checked = await checkedEdits(input, ctx);
    return "problem" in checked ? checked.problem : null;
  },
  async execute(input, ctx) {
    const checked = await checkedEdits(input, ctx);
    if ("problem" in checked) return fail(checked.problem);
    const { abs, shown, read, planned } = checked;
    const failed = await writeWhole(abs, planned.newText, shown, read, ctx);
    if (failed) return fail(failed);
    const what = planned.count === 1 ? "1 replacement" : `${planned.count} replacements`;
    const result = ok(`Edited ${shown} (${input.edits.length} edits, ${what}):\n${unifiedDiff(read.text, planned.newText, { maxLines: 120 })}`, {
      diffs: [{ path: abs, oldText: read.text, newText: planned.newText }],
      meta: { edits: input.edits.length, replacements: planned.count },
    });
    return await withDiagnostics(result, abs, shown, planned.newText, ctx);
  },
});

/** The call's edits planned over the file as it is now, or why none can be made. */
async function checkedEdits(
  input: { path: string; edits: readonly Edit[] },
  ctx: ToolContext<"files" | "fileAccess">,
): Promise<{ abs: string; shown: string; read: { text: string; held: boolean }; planned: { newText: string; count: number } } | { problem: string }> {
  const abs = resolvePath(input.path, ctx.cwd);
  const shown = displayPath(abs, ctx.root);
  const read = await readForEdit(abs, shown, ctx);
  if ("problem" in read) return read;
  const planned = planEdits(read.text, input.edits, shown);
  if ("problem" in planned) return { problem: `${planned.problem} None of the ${input.edits.length} edits was made: ${shown} is unchanged.` };
  return { abs, shown, read, planned };
}

/**
 * Every edit's spans in the text as it is, checked to not overlap one another, then all put in: the
 * new text, or the first edit that fails and why ("edit 2 of 3: …").
 */
export function planEdits(content: string, edits: readonly Edit[], shown: string): { newText: string; count: number } | { problem: string } {
  const spans: (Span & { edit: number })[] = [];
  for (const [i, edit] of edits.entries()) {
    const label = `Edit ${i + 1} of ${edits.length}`;
    if (edit.old_string === edit.new_string) return { problem: `${label}: old_string and new_string are the same.` };
    const found = locate(content, edit.old_string, edit.new_string, edit.replace_all ?? false, shown);
    if ("problem" in found) return { problem: `${label}: ${found.problem}${afterEarlier(content, edits, i)}` };
    spans.push(...found.spans.map((span) => ({ ...span, edit: i })));
  }
  spans.sort((a, b) => a.start - b.start);
  for (let k = 1; k < spans.length; k++) {
    const before = spans[k - 1];
    const span = spans[k];
    if (!before || !span || span.start >= before.end) continue;
    const [first, second] = [before.edit, span.edit].sort((a, b) => a - b);
    return {
      problem: `Edits ${(first ?? 0) + 1} and ${(second ?? 0) + 1} of ${edits.length} overlap: their old_strings share text of ${shown}. Make them one edit, or pick old_strings that do not share lines.`,
    };
  }
  return { newText: applySpans(content, spans), count: spans.length };
}

/** A hint when an edit's old_string is text an earlier edit of the call writes: each is matched in the file as it is now. */
function afterEarlier(content: string, edits: readonly Edit[], index: number): string {
  const wanted = edits[index]?.old_string ?? "";
  if (content.includes(wanted)) return "";
  const earlier = edits.slice(0, index).findIndex((edit) => edit.new_string.includes(wanted));
  if (earlier === -1) return "";
  return ` It is text edit ${earlier + 1} writes: every old_string is matched in the file as it is before this call, so fold the two into one edit.`;
}
