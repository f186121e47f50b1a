import { mkdir, readFile, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { writeAtomic } from "./atomic.ts";
import { displayPath, resolvePath } from "./paths.ts";
import { errorCode } from "../errors.ts";
import { changedSinceRead, fail, fsErrorMessage, ok } from "./result.ts";
import { defineTool } from "./tool.ts";
import description from "./write.txt" with { type: "text" };

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    path: z.string().min(1).describe("Absolute, or relative to the working directory"),
    content: z.string().describe("The whole new content"),
  });

/** write: creates or replaces a whole file, atomically; an existing file must have been read first. */
export const writeTool = defineTool({
  name: "write",
  description,
  brief: "Writes a whole file (an existing one must be read first). Use edit to change part of a file.",
  schema,
  permission: "write",
  needs: ["files", "changes"],
  kind: "edit",
  title: (input, ctx) => `Write ${displayPath(resolvePath(input.path, ctx.cwd), ctx.root)}`,
  paths: (input, ctx) => [resolvePath(input.path, ctx.cwd)],
  async preview(input, ctx) {
    const abs = resolvePath(input.path, ctx.cwd);
    return [{ path: abs, oldText: await existingText(abs), newText: input.content }];
  },
  async execute(input, ctx) {
    const abs = resolvePath(input.path, ctx.cwd);
    const shown = displayPath(abs, ctx.root);
    try {
      const oldText = await existingText(abs);
      if (oldText !== null) {
        const state = ctx.files.readState(abs);
        if (state === "unread") {
          return fail(`${shown} already exists and has not been read in this session: read it first, then write it (or use edit).`);
        }
        if (state === "changed") return fail(changedSinceRead(shown, "write"));
      }
      await ctx.changes.before(abs);
      await mkdir(dirname(abs), { recursive: true });
      await writeAtomic(abs, input.content);
      ctx.changes.after(abs);
      ctx.files.markRead(abs, input.content);
      const lines = countLines(input.content);
      const verb = oldText === null ? "Created" : "Wrote";
      return ok(`${verb} ${shown} (${lines} line${lines === 1 ? "" : "s"}).`, {
        diffs: [{ path: abs, oldText, newText: input.content }],
      });
    } catch (error) {
      return fail(fsErrorMessage(error, shown));
    }
  },
});

/** The file's text, or null when there is no file; a directory is an error. */
async function existingText(abs: string): Promise<string | null> {
  try {
    const info = await stat(abs);
    if (info.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    return await readFile(abs, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw error;
  }
}

function countLines(text: string): number {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}
