import { z } from "zod";
import { displayPath, resolvePath } from "./paths.ts";
import { errorCode } from "../errors.ts";
import { changedSinceRead, fail, fsErrorMessage, ok } from "./result.ts";
import { readText, writeWhole } from "./text-file.ts";
import { withDiagnostics } from "./edit-diagnostics.ts";
import { defineTool, type ToolContext } from "./tool.ts";
import description from "./write.txt" with { type: "text" };

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    path: z.string().min(1),
    content: z.string(),
  });

/** write: creates or replaces a whole file, atomically; an existing file must have been read first. */
export const writeTool = defineTool({
  name: "write",
  description,
  brief: "Writes a whole file (an existing one must be read first). Use edit to change part of a file.",
  schema,
  permission: "write",
  needs: ["files", "changes", "fileAccess", "lsp"],
  kind: "edit",
  title: (input, ctx) => `Write ${displayPath(resolvePath(input.path, ctx.cwd), ctx.root)}`,
  paths: (input, ctx) => [resolvePath(input.path, ctx.cwd)],
  async preview(input, ctx) {
    const abs = resolvePath(input.path, ctx.cwd);
    const old = await existingText(abs, ctx);
    return [{ path: abs, oldText: old?.text ?? null, newText: input.content }];
  },
  async execute(input, ctx) {
    const abs = resolvePath(input.path, ctx.cwd);
    const shown = displayPath(abs, ctx.root);
    try {
      const old = await existingText(abs, ctx);
      const oldText = old?.text ?? null;
      if (old !== null) {
        const state = ctx.files.readState(abs, old.text);
        if (state === "unread") {
          return fail(`${shown} already exists and has not been read in this session: read it first, then write it (or use edit).`);
        }
        if (state === "changed") return fail(changedSinceRead(shown, "write"));
      }
      const failed = await writeWhole(abs, input.content, shown, old, ctx);
      if (failed) return fail(failed);
      const lines = countLines(input.content);
      const verb = oldText === null ? "Created" : "Wrote";
      const result = ok(`${verb} ${shown} (${lines} line${lines === 1 ? "" : "s"}).`, {
        diffs: [{ path: abs, oldText, newText: input.content }],
      });
      return await withDiagnostics(result, abs, shown, input.content, ctx);
    } catch (error) {
      return fail(fsErrorMessage(error, shown));
    }
  },
});

/** The file's text (an editor's buffer, where the session has one), or null when there is no file; a directory is an error. */
async function existingText(abs: string, ctx: ToolContext<"fileAccess">): Promise<{ text: string; held: boolean } | null> {
  const read = await readText(abs, ctx);
  if ("text" in read) return read;
  if (errorCode(read.error) === "ENOENT") return null;
  throw read.error;
}

function countLines(text: string): number {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}
