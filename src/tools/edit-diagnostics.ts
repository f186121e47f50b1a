import { diagnosticLines } from "./diagnostics.ts";
import type { ToolContext, ToolResult } from "./tool.ts";

/**
 * A successful write's result with the file's errors (and the warnings the person opted into) as
 * its language server reports them now, bounded; as it was where no server answered in time, or
 * none handles the file. `meta.diagnostics` holds the lines for the edit's block in a terminal.
 */
export async function withDiagnostics(result: ToolResult, abs: string, shown: string, text: string, ctx: ToolContext<"lsp">): Promise<ToolResult> {
  if (result.isError || !ctx.lsp) return result;
  const found = await ctx.lsp.diagnose(abs, text).catch(() => null);
  if (!found || found.count === 0) return result;
  const lines = diagnosticLines(shown, found.diagnostics, found.count);
  const errors = found.diagnostics.filter((d) => d.severity === 1).length;
  const said = `\n\nThe language server reports in ${shown} now:\n${lines.join("\n")}`;
  return { ...result, output: `${result.output}${said}`, meta: { ...result.meta, diagnostics: lines, errors, warnings: found.diagnostics.length - errors } };
}
