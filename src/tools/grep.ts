import { stat } from "node:fs/promises";
import { z } from "zod";
import description from "./grep.txt" with { type: "text" };
import { comparePaths, displayPath, newestFirst, relativePosix, resolvePath } from "./paths.ts";
import { fail, ok } from "./result.ts";
import { judgeFound, type PathGuard, pathGuard } from "../project/protected.ts";
import { type FileHit, type HitLine, type SearchEngine, type SearchMode, type SearchQuery, type SearchResult, defaultEngine, search } from "./search.ts";
import { type Tool, type ToolContext, type ToolResult, defineTool } from "./tool.ts";

const DEFAULT_LIMIT = 100;
const MAX_LINE_CHARS = 500;

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    pattern: z.string().min(1),
    path: z.string().optional().describe("A directory or file"),
    glob: z.string().optional().describe('Only these files: "*.ts", "!*.test.ts"'),
    ignore_case: z.boolean().optional(),
    output_mode: z
      .enum(["content", "files_with_matches", "count"])
      .optional(),
    context: z.number().int().min(0).max(20).optional().describe("Lines around each match"),
    limit: z.number().int().min(1).max(2000).optional().describe(`Default ${DEFAULT_LIMIT}`),
  });

type GrepInput = z.infer<ReturnType<typeof schema>>;

/** The grep tool searching with the given engine; tests pick the fallback with `{ rg: null }`. */
export function createGrepTool(engine: () => SearchEngine = defaultEngine): Tool<ReturnType<typeof schema>, "files"> {
  return defineTool({
    name: "grep",
    description,
    brief: "Searches file contents by regex (ripgrep). output_mode: files_with_matches (default), content (path:line:text) or count.",
    schema,
    permission: "read",
    needs: ["files"],
    kind: "search",
    title: (input, ctx) => {
      const where = input.path ? ` in ${displayPath(resolvePath(input.path, ctx.cwd), ctx.root)}` : "";
      return `Search for ${JSON.stringify(input.pattern)}${where}`;
    },
    paths: (input, ctx) => [resolvePath(input.path ?? ".", ctx.cwd)],
    more: "narrow the search: a more specific pattern, path or glob, a lower limit, or output_mode files_with_matches",
    execute: (input, ctx) => runGrep(input, ctx, engine()),
  });
}

/** grep: a regular-expression search honouring .gitignore, through ripgrep when it is installed. */
export const grepTool = createGrepTool();

async function runGrep(input: GrepInput, ctx: ToolContext<"files">, engine: SearchEngine): Promise<ToolResult> {
  const base = resolvePath(input.path ?? ".", ctx.cwd);
  const shownBase = displayPath(base, ctx.root);
  if (!(await stat(base).catch(() => null))) return fail(`${shownBase} does not exist: give an existing directory or file as path.`);
  const mode: SearchMode = input.output_mode ?? "files_with_matches";
  const limit = input.limit ?? DEFAULT_LIMIT;
  const result = await searchSafely(
    {
      pattern: input.pattern,
      base,
      root: ctx.root,
      glob: input.glob,
      ignoreCase: input.ignore_case ?? false,
      mode,
      context: input.context ?? 0,
      limit,
      ...searchGuard(base, ctx),
      signal: ctx.signal,
    },
    engine,
  );
  if (!result.ok) return fail(withEscapeHint(result.error));
  if (result.files.length === 0) return ok(`No matches for ${JSON.stringify(input.pattern)} in ${shownBase}.`, { meta: { files: 0 } });
  const show = (abs: string): string => relativePosix(abs, ctx.cwd);
  if (mode === "files_with_matches") return formatFiles(await newestFirst(result.files, (file) => file.path), limit, show);
  if (mode === "count") return formatCounts(result.files, limit, show);
  return formatContent(result.files, { limit, context: input.context ?? 0, complete: result.complete }, show);
}

/**
 * Protected files under the base are left out, content and name, judged as written and as they
 * really are (the base may be a symlink into a protected directory). A base that is protected
 * itself was asked about (see `paths`), and what the person allowed is searched whole.
 */
function searchGuard(base: string, ctx: ToolContext<"files">): { guard?: PathGuard } {
  const judge = judgeFound(base, ctx.root, ctx.files.protection);
  if (judge(base)) return {};
  return { guard: pathGuard((path) => judge(path) !== null) };
}

/** A search whose unexpected failure (ripgrep gone since it was found, say) is a result too. */
async function searchSafely(query: SearchQuery, engine: SearchEngine): Promise<SearchResult> {
  try {
    return await search(query, engine);
  } catch (error) {
    return { ok: false, error: `The search failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function formatFiles(files: FileHit[], limit: number, show: (abs: string) => string): ToolResult {
  const lines = files.slice(0, limit).map((file) => show(file.path));
  if (files.length > limit) lines.push("", `(${limit} of ${files.length} files shown: narrow the pattern, path or glob to see the rest)`);
  return ok(lines.join("\n"), { meta: { files: files.length } });
}

function formatCounts(files: FileHit[], limit: number, show: (abs: string) => string): ToolResult {
  const sorted = [...files].sort((a, b) => comparePaths(a.path, b.path));
  const total = sorted.reduce((sum, file) => sum + file.count, 0);
  const lines = sorted.slice(0, limit).map((file) => `${show(file.path)}:${file.count}`);
  if (sorted.length > limit) lines.push("", `(${limit} of ${sorted.length} files shown)`);
  lines.push("", `${total} matching line${total === 1 ? "" : "s"} in ${sorted.length} file${sorted.length === 1 ? "" : "s"}`);
  return ok(lines.join("\n"), { meta: { files: sorted.length, matches: total } });
}

type ContentOptions = { limit: number; context: number; complete: boolean };

/**
 * ripgrep's own layout: `path:n:text` for matches, `path-n-text` for context, and with context
 * `--` between groups that do not touch. After `limit` matches only the last one's context follows.
 */
function formatContent(files: FileHit[], opts: ContentOptions, show: (abs: string) => string): ToolResult {
  const out: string[] = [];
  let matches = 0;
  for (const file of [...files].sort((a, b) => comparePaths(a.path, b.path))) {
    if (matches >= opts.limit) break;
    const path = show(file.path);
    let previous = -1;
    let lastMatch = -1;
    for (const line of file.lines) {
      if (matches >= opts.limit && (line.match || line.n > lastMatch + opts.context)) break;
      if (opts.context > 0 && out.length > 0 && line.n !== previous + 1) out.push("--");
      const sep = line.match ? ":" : "-";
      out.push(`${path}${sep}${line.n}${sep}${cut(line)}`);
      previous = line.n;
      if (!line.match) continue;
      matches++;
      lastMatch = line.n;
    }
  }
  if (!opts.complete) {
    out.push("", `(the first ${matches} matching lines are shown; there are more: narrow the pattern, path or glob, or raise limit)`);
  }
  return ok(out.join("\n"), { meta: { matches, files: files.length } });
}

/** A line's first MAX_LINE_CHARS characters, saying how much more there is (only that there is more when the search cut it unmeasured). */
function cut(line: HitLine): string {
  const { text } = line;
  if (text.length <= MAX_LINE_CHARS && !line.cut) return text;
  const shown = text.slice(0, MAX_LINE_CHARS);
  const length = line.cut ? line.cut.length : text.length;
  if (length === undefined) return `${shown}… [the line is cut: over ${text.length - shown.length} more characters]`;
  return `${shown}… [${length - shown.length} more characters]`;
}

/** A pattern that is not a valid regex is most often text meant literally: say how to write it. */
function withEscapeHint(error: string): string {
  if (!/regex parse error|not a valid regular expression/i.test(error)) return error;
  return `${error}\nTo match ( ) [ ] { } . * + ? | or \\ literally, put a backslash before it (foo\\(, \\.env).`;
}
