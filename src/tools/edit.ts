import { readFile, stat } from "node:fs/promises";
import { z } from "zod";
import { writeAtomic } from "./atomic.ts";
import { unifiedDiff } from "./diff.ts";
import description from "./edit.txt" with { type: "text" };
import { displayPath, resolvePath } from "./paths.ts";
import { errorCode } from "../errors.ts";
import { changedSinceRead, fail, fsErrorMessage, ok } from "./result.ts";
import { defineTool, type ToolResult } from "./tool.ts";

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    path: z.string().min(1).describe("Absolute, or relative to the working directory"),
    old_string: z.string().min(1).describe("The exact text to replace"),
    new_string: z.string().describe("What replaces it"),
    replace_all: z.boolean().optional().describe("Replace every occurrence; default false"),
  });

/** edit: an exact string replacement in a file read before; CRLF files keep their line endings. */
export const editTool = defineTool({
  name: "edit",
  description,
  brief: "Replaces old_string, copied exactly from a file read before (without line numbers), with new_string. old_string must occur once, unless replace_all.",
  schema,
  permission: "write",
  kind: "edit",
  title: (input, ctx) => `Edit ${displayPath(resolvePath(input.path, ctx.cwd), ctx.root)}`,
  paths: (input, ctx) => [resolvePath(input.path, ctx.cwd)],
  async preview(input, ctx) {
    const abs = resolvePath(input.path, ctx.cwd);
    const read = await readText(abs);
    if ("error" in read) return [];
    const change = planChange(read.text, input.old_string, input.new_string, input.replace_all ?? false, abs);
    return "output" in change ? [] : [{ path: abs, oldText: read.text, newText: change.newText }];
  },
  async execute(input, ctx) {
    const abs = resolvePath(input.path, ctx.cwd);
    const shown = displayPath(abs, ctx.root);
    if (input.old_string === input.new_string) {
      return fail("old_string and new_string are the same: there is nothing to change.");
    }
    const read = await readText(abs);
    if ("error" in read) return fail(missingOrError(read.error, shown));
    const content = read.text;
    const state = ctx.readState(abs);
    if (state === "unread") return fail(`${shown} has not been read in this session: read it first, then edit it.`);
    if (state === "changed") return fail(changedSinceRead(shown, "edit"));
    const change = planChange(content, input.old_string, input.new_string, input.replace_all ?? false, shown);
    if ("output" in change) return change;
    try {
      await ctx.beforeChange(abs);
      await writeAtomic(abs, change.newText);
      ctx.afterChange(abs);
      ctx.markRead(abs, change.newText);
    } catch (error) {
      return fail(fsErrorMessage(error, shown));
    }
    const what = change.count === 1 ? "1 replacement" : `${change.count} replacements`;
    return ok(`Edited ${shown} (${what}):\n${unifiedDiff(content, change.newText, { maxLines: 60 })}`, {
      diffs: [{ path: abs, oldText: content, newText: change.newText }],
      meta: { replacements: change.count },
    });
  },
});

type Change = { newText: string; count: number };

/** The new content, or a failed result the model can act on. */
export function planChange(content: string, oldString: string, newString: string, replaceAll: boolean, shown: string): Change | ToolResult {
  const { find, replace } = matchLineEndings(content, oldString, newString);
  const count = countOccurrences(content, find);
  if (count === 0) return fail(notFoundMessage(content, oldString, shown));
  if (count > 1 && !replaceAll) {
    return fail(
      `old_string occurs ${count} times in ${shown}: add surrounding lines to old_string so it matches exactly one place, or set replace_all to change all ${count}.`,
    );
  }
  if (replaceAll) return { newText: content.split(find).join(replace), count };
  const at = content.indexOf(find);
  return { newText: content.slice(0, at) + replace + content.slice(at + find.length), count: 1 };
}

/**
 * In a file with CRLF line endings, strings written with LF only are given CRLF, so they match
 * and the file keeps its endings. A string that already holds `\r` is taken as it is.
 */
function matchLineEndings(content: string, oldString: string, newString: string): { find: string; replace: string } {
  if (!usesCrlf(content)) return { find: oldString, replace: newString };
  const crlf = (text: string): string => (text.includes("\r") ? text : text.replace(/\n/g, "\r\n"));
  const find = crlf(oldString);
  // A mixed file may hold the LF form where the CRLF form is missing.
  if (!content.includes(find) && content.includes(oldString)) return { find: oldString, replace: newString };
  return { find, replace: crlf(newString) };
}

function usesCrlf(content: string): boolean {
  const crlf = content.split("\r\n").length - 1;
  if (crlf === 0) return false;
  const lf = content.split("\n").length - 1 - crlf;
  return crlf >= lf;
}

function countOccurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count++;
  return count;
}

/** Says old_string was not found, with what is cheap to find out about why. */
function notFoundMessage(content: string, oldString: string, shown: string): string {
  const parts = [`old_string was not found in ${shown}.`];
  if (/^\s*\d+\t/m.test(oldString)) {
    parts.push("It seems to hold read's line numbers: leave out the number and the tab before each line.");
  }
  const squash = (text: string): string => text.replace(/\s+/g, " ").trim();
  if (squash(content).includes(squash(oldString))) {
    parts.push("It matches if whitespace is ignored: copy the indentation (tabs or spaces) and line breaks exactly.");
  }
  const closest = closestLines(content, oldString);
  if (closest) parts.push(`Lines of the file like one of its lines:\n${closest}`);
  else parts.push("Read the file again to see its current content.");
  return parts.join(" ");
}

/**
 * Up to three lines of the file like one of old_string's lines (the longest that is found), numbered
 * as read shows them.
 */
function closestLines(content: string, oldString: string): string | null {
  const candidates = oldString
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length >= 3)
    .sort((a, b) => b.length - a.length)
    .slice(0, 5);
  const lines = content.split("\n").map((line) => line.replace(/\r$/, ""));
  for (const wanted of candidates) {
    const hits = lines.flatMap((line, i) => (line.trim() === wanted || (wanted.length >= 8 && line.includes(wanted)) ? [i] : []));
    if (hits.length === 0) continue;
    return hits
      .slice(0, 3)
      .map((i) => `${i + 1}\t${lines[i] ?? ""}`)
      .join("\n");
  }
  return null;
}

async function readText(abs: string): Promise<{ text: string } | { error: unknown }> {
  try {
    const info = await stat(abs);
    if (info.isDirectory()) return { error: Object.assign(new Error("is a directory"), { code: "EISDIR" }) };
    return { text: await readFile(abs, "utf8") };
  } catch (error) {
    return { error };
  }
}

function missingOrError(error: unknown, shown: string): string {
  if (errorCode(error) === "ENOENT") return `${shown} does not exist: use write to create a new file.`;
  return fsErrorMessage(error, shown);
}
