import { editDiagnosticLines } from "./diagnostics.ts";
import type { ToolContext, ToolResult } from "./tool.ts";

/**
 * A successful write's result with the file's errors (and the warnings the person opted into) as
 * its language server reports them now, bounded: those the edit brought first, then those already
 * there; as it was where no server answered in time, or none handles the file. `meta.diagnostics`
 * holds the lines for the edit's block in a terminal.
 */
export async function withDiagnostics(result: ToolResult, abs: string, shown: string, text: string, ctx: ToolContext<"lsp">): Promise<ToolResult> {
  if (result.isError || !ctx.lsp) return result;
  const old = result.diffs?.find((d) => d.path === abs)?.oldText ?? null;
  const found = await ctx.lsp.diagnose(abs, text, old).catch(() => null);
  if (!found || found.count === 0) return result;
  const { said, block } = editDiagnosticLines(shown, found.fresh, found.already, found.count);
  const all = [...found.fresh, ...found.already];
  const errors = all.filter((d) => d.severity === 1).length;
  const output = `${result.output}\n\nThe language server reports in ${shown} now:\n${said.join("\n")}`;
  return { ...result, output, meta: { ...result.meta, diagnostics: block, errors, warnings: all.length - errors } };
}
