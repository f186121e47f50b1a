import type { Stats } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import description from "./read.txt" with { type: "text" };
import { displayPath, resolvePath } from "./paths.ts";
import { errorCode } from "../errors.ts";
import { imageTypeOf, MAX_IMAGE_BYTES } from "../images.ts";
import { editDistance } from "../suggest.ts";
import { fail, fsErrorMessage, ok } from "./result.ts";
import { defineTool, type ToolContext, type ToolResult } from "./tool.ts";

const DEFAULT_LIMIT = 2000;
const MAX_LINE_CHARS = 2000;
/** The lines shown stop before this many characters, so that the result is never cut in the middle. */
const MAX_WINDOW_CHARS = 29_000;
const SNIFF_BYTES = 8192;
/** Past the lines shown, newlines are counted in at most this many bytes to tell the total. */
const COUNT_BUDGET_BYTES = 64 * 1024 * 1024;

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    path: z.string().min(1),
    offset: z.number().int().min(1).optional().describe("The first line, from 1"),
    limit: z.number().int().min(1).optional(),
  });

/** read: a file's lines, numbered; images for a vision model; never binary garbage. */
export const readTool = defineTool({
  name: "read",
  description,
  brief: "Reads a file's lines, numbered (number, tab, text: never copy those into edit). offset and limit page through long files. Read a file before edit or write.",
  schema,
  permission: "read",
  needs: ["files", "model", "fileAccess"],
  kind: "read",
  title: (input, ctx) => {
    const shown = displayPath(resolvePath(input.path, ctx.cwd), ctx.root);
    return input.offset && input.offset > 1 ? `Read ${shown} from line ${input.offset}` : `Read ${shown}`;
  },
  paths: (input, ctx) => [resolvePath(input.path, ctx.cwd)],
  more: "read a smaller range with offset and limit",
  async execute(input, ctx) {
    const abs = resolvePath(input.path, ctx.cwd);
    const shown = displayPath(abs, ctx.root);
    let info: Stats;
    try {
      info = await stat(abs);
    } catch (error) {
      return errorCode(error) === "ENOENT" ? fail(await missingMessage(abs, shown, ctx)) : fail(fsErrorMessage(error, shown));
    }
    if (info.isDirectory()) return fail(`${shown} is a directory: use the list tool to see what it holds.`);
    if (!info.isFile()) return fail(`${shown} is not a regular file (a device, socket or pipe): it cannot be read.`);
    try {
      const { result, held } = await readFileAt(abs, shown, info.size, input, ctx);
      if (held === undefined) ctx.files.markRead(abs);
      else ctx.files.markRead(abs, held, "held");
      return result;
    } catch (error) {
      return fail(fsErrorMessage(error, shown));
    }
  },
});

async function readFileAt(
  abs: string,
  shown: string,
  size: number,
  input: z.infer<ReturnType<typeof schema>>,
  ctx: ToolContext<"model" | "fileAccess">,
): Promise<{ result: ToolResult; held?: string }> {
  const mimeType = imageTypeOf(abs);
  if (mimeType) return { result: await readImage(abs, shown, size, mimeType, ctx.model.vision) };
  const head = new Uint8Array(await Bun.file(abs).slice(0, SNIFF_BYTES).arrayBuffer());
  if (isBinary(head)) return { result: ok(`${shown} is a binary file, ${size} bytes: it is not shown.`, { meta: { binary: true, bytes: size } }) };
  // The text as the person has it (an editor's unsaved buffer), where the session's access holds it.
  const held = await ctx.fileAccess.readText(abs, ctx.signal);
  const text = held && "text" in held ? held.text : undefined;
  const offset = input.offset ?? 1;
  const limit = input.limit ?? DEFAULT_LIMIT;
  const window = await readLines(text === undefined ? Bun.file(abs) : new Blob([text]), offset, limit);
  const note = held && "fallback" in held ? `\n\n(${held.fallback})` : "";
  const result = ok(formatWindow(shown, window, offset) + note, { meta: { lines: window.lines.length, totalLines: window.total } });
  return text === undefined ? { result } : { result, held: text };
}

async function readImage(abs: string, shown: string, size: number, mimeType: string, vision: boolean): Promise<ToolResult> {
  if (!vision) {
    return ok(`${shown} is an image (${mimeType}, ${size} bytes); this model cannot see images, so its content is not shown.`);
  }
  if (size > MAX_IMAGE_BYTES) {
    return fail(`${shown} is an image of ${size} bytes, more than the ${MAX_IMAGE_BYTES / 1024 / 1024} MB that can be attached.`);
  }
  const data = Buffer.from(await Bun.file(abs).arrayBuffer()).toString("base64");
  return ok(`${shown}: image (${mimeType}, ${size} bytes), attached.`, { images: [{ mimeType, data, path: abs }] });
}

/** Binary: a NUL byte in the first bytes, or bytes that are not UTF-8. */
function isBinary(head: Uint8Array): boolean {
  if (head.includes(0)) return true;
  try {
    // stream: a character cut at the end of the sniffed bytes is not an error.
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
    return false;
  } catch {
    return true;
  }
}

type Window = {
  lines: string[];
  /** The file's line count, or null when it was too large to count to the end. */
  total: number | null;
  /** Whether lines follow the window. */
  more: boolean;
};

/** Reads lines offset..offset+limit-1 (1-based) streaming, so a huge file is never held whole. */
async function readLines(source: Blob, offset: number, limit: number): Promise<Window> {
  const decoder = new TextDecoder();
  const lines: string[] = [];
  let next = 1;
  let partial = "";
  // A line longer than shown is kept cut, with the count of what was cut: one huge line stays bounded.
  let partialCut = 0;
  let more = false;
  let chars = 0;
  const take = (line: string, cut: number): void => {
    if (next >= offset && !more) {
      const shown = cutLine(line.endsWith("\r") ? line.slice(0, -1) : line, cut);
      // The first line is always shown; the window ends at its line count or its character budget.
      if (lines.length < limit && (lines.length === 0 || chars + shown.length < MAX_WINDOW_CHARS)) {
        lines.push(shown);
        chars += shown.length + String(next).length + 2;
      } else more = true;
    }
    next++;
  };
  const stream = source.stream();
  const reader = stream.getReader();
  try {
    for (let chunk = await reader.read(); !chunk.done && chunk.value; chunk = await reader.read()) {
      if (more) return { lines, total: await countRest(reader, next - 1, chunk.value), more };
      const parts = (partial + decoder.decode(chunk.value, { stream: true })).split("\n");
      partial = parts.pop() ?? "";
      parts.forEach((part, i) => take(part, i === 0 ? partialCut : 0));
      if (parts.length > 0) partialCut = 0;
      if (partial.length > MAX_LINE_CHARS + 1) {
        partialCut += partial.length - MAX_LINE_CHARS - 1;
        partial = partial.slice(0, MAX_LINE_CHARS + 1);
      }
    }
  } finally {
    reader.releaseLock();
    await stream.cancel().catch(() => {});
  }
  partial += decoder.decode();
  if (partial !== "") take(partial, partialCut);
  return { lines, total: next - 1, more };
}

/** The part of a stream reader used here (Bun's and node:stream/web's reader types differ). */
type ByteReader = { read(): Promise<{ done: boolean; value?: Uint8Array }> };

/**
 * The total line count once the window is full: the lines already split plus the newlines in
 * the raw bytes left, within a budget (null past it).
 */
async function countRest(
  reader: ByteReader,   done: number,
  first: Uint8Array,
): Promise<number | null> {
  let count = done;
  let bytes = 0;
  let last = 10;
  for (let chunk: Uint8Array | undefined = first; chunk; ) {
    count += countNewlines(chunk);
    bytes += chunk.length;
    if (chunk.length > 0) last = chunk[chunk.length - 1] ?? 10;
    if (bytes > COUNT_BUDGET_BYTES) return null;
    const next = await reader.read();
    chunk = next.done ? undefined : next.value;
  }
  // A last line without a newline is a line too.
  return last === 10 ? count : count + 1;
}

function countNewlines(bytes: Uint8Array): number {
  let n = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

function formatWindow(shown: string, window: Window, offset: number): string {
  const { lines, total, more } = window;
  if (lines.length === 0) {
    if ((total ?? 0) === 0) return `${shown} is empty.`;
    return `${shown} has ${total} lines: offset ${offset} is past its end.`;
  }
  const last = offset + lines.length - 1;
  const width = String(last).length;
  const body = lines.map((line, i) => `${String(offset + i).padStart(width)}\t${line}`).join("\n");
  if (!more) return body;
  const of = total === null ? "" : ` of ${total}`;
  return `${body}\n\n(lines ${offset}-${last}${of} shown; the file continues: read on with offset ${last + 1})`;
}

/** A line as shown: at most MAX_LINE_CHARS, with a note of how many more it had (`cut` were dropped already). */
function cutLine(line: string, cut: number): string {
  const rest = line.length - MAX_LINE_CHARS + cut;
  if (rest <= 0) return line;
  return `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${rest} more characters]`;
}

/** "x does not exist", with names in its directory that look like the one asked for (secrets left out). */
async function missingMessage(abs: string, shown: string, ctx: ToolContext<"files">): Promise<string> {
  const dir = dirname(abs);
  const names = await readdir(dir).catch(() => null);
  if (names === null) return `${shown} does not exist, nor does its directory ${dirname(shown)}.`;
  // A secret's name is not offered: the model would only be told of a file it may not see.
  const similar = similarNames(basename(abs), names.filter((name) => ctx.files.protection(join(dir, name)) !== "secret"));
  if (similar.length === 0) return `${shown} does not exist.`;
  const parent = dirname(shown) === "." ? "" : `${dirname(shown)}/`;
  return `${shown} does not exist. Did you mean: ${similar.map((name) => parent + name).join(", ")}?`;
}

/** Up to five names close to `wanted`: same letters ignoring case, one inside the other, or a few typos away. */
function similarNames(wanted: string, names: string[]): string[] {
  const want = wanted.toLowerCase();
  const stem = want.replace(/\.[^.]*$/, "");
  const scored = names.flatMap((name) => {
    const low = name.toLowerCase();
    const lowStem = low.replace(/\.[^.]*$/, "");
    if (low === want || lowStem === stem) return [{ name, score: 0 }];
    if (stem.length >= 3 && (low.includes(stem) || want.includes(lowStem))) return [{ name, score: 1 }];
    // Lengths far apart are many edits apart: not worth measuring.
    if (Math.abs(want.length - low.length) > 8) return [];
    const distance = editDistance(want, low);
    return distance <= Math.max(2, Math.floor(want.length / 4)) ? [{ name, score: 1 + distance }] : [];
  });
  return scored
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, 5)
    .map((s) => s.name);
}

