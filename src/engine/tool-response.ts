import type { ToolResultRecord } from "./records.ts";

type Args = Record<string, unknown>;

/**
 * A tool's result as a PostToolUse hook reads it in `tool_response`: in Claude Code's shape for
 * the tools it has (Bash's stdout, Write's and Edit's filePath and success, Read's file), so that
 * a script reading `.tool_response.stdout` or `.tool_response.filePath` works unchanged; with
 * lembas's own `output`, `is_error` and the tool's details beside it.
 */
export function toolResponse(tool: string, args: unknown, paths: readonly string[], record: ToolResultRecord, meta: Record<string, unknown> | undefined): Record<string, unknown> {
  const input: Args = typeof args === "object" && args !== null ? (args as Args) : {};
  const own = { output: record.output, is_error: record.isError, ...(meta ?? {}) };
  return { ...own, ...theirs(tool, input, paths[0] ?? (typeof input.path === "string" ? input.path : ""), record, meta ?? {}) };
}

function theirs(tool: string, input: Args, filePath: string, record: ToolResultRecord, meta: Record<string, unknown>): Args {
  const success = !record.isError;
  switch (tool) {
    case "bash":
      // lembas reads a command's stdout and stderr as one stream, in the order they came: stdout has both.
      return { stdout: record.output, stderr: "", interrupted: meta.stopped !== undefined, isImage: false };
    case "write":
      return { filePath, content: input.content, success };
    case "edit":
      return { filePath, oldString: input.old_string, newString: input.new_string, replaceAll: input.replace_all === true, success };
    case "multi_edit":
      return { filePath, edits: input.edits, success };
    case "read":
      return { type: "text", file: { filePath, content: readContent(record.output), numLines: meta.lines ?? 0, startLine: input.offset ?? 1, totalLines: meta.totalLines ?? null } };
    case "fetch":
      return { url: input.url, result: record.output, success };
    default:
      return {};
  }
}

/** The text of the lines read shows (number, tab, line), without the numbers; "" when it showed none. */
function readContent(output: string): string {
  const lines = output.split("\n");
  const numbered = lines.filter((line) => /^ *\d+\t/.test(line));
  return numbered.length === 0 ? "" : numbered.map((line) => line.replace(/^ *\d+\t/, "")).join("\n");
}
