import { stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { z } from "zod";
import description from "./glob.txt" with { type: "text" };
import { walk } from "../project/ignore-walk.ts";
import { displayPath, newestFirst, relativePosix, resolvePath } from "./paths.ts";
import { fail, ok } from "./result.ts";
import { secretsUnder } from "./secrets.ts";
import { defineTool } from "./tool.ts";
import { isInside } from "../paths.ts";

const MAX_RESULTS = 1000;

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    pattern: z.string().min(1),
    path: z.string().optional(),
  });

/** glob: files matching a pattern, honouring .gitignore, newest first. */
export const globTool = defineTool({
  name: "glob",
  description,
  brief: "Finds files by name with a glob (**/*.ts), newest first.",
  schema,
  permission: "read",
  needs: ["files"],
  kind: "search",
  title: (input, ctx) => {
    const where = input.path ? ` in ${displayPath(resolvePath(input.path, ctx.cwd), ctx.root)}` : "";
    return `Find ${input.pattern}${where}`;
  },
  paths: (input, ctx) => [resolvePath(input.path ?? ".", ctx.cwd)],
  more: "narrow the pattern or give a path deeper in the tree",
  async execute(input, ctx) {
    const base = resolvePath(input.path ?? ".", ctx.cwd);
    const shownBase = displayPath(base, ctx.root);
    const info = await stat(base).catch(() => null);
    if (!info) return fail(`${shownBase} does not exist: give an existing directory as path.`);
    if (!info.isDirectory()) return fail(`${shownBase} is a file, not a directory: give its directory as path.`);
    const matcher = new Bun.Glob(patternFrom(input.pattern, base));
    const found: { abs: string; rel: string }[] = [];
    for await (const entry of walk(base, { root: ctx.root, signal: ctx.signal, leaveOut: secretsUnder(base, ctx) })) {
      if (entry.type !== "dir" && matcher.match(entry.rel)) found.push(entry);
    }
    if (found.length === 0) return ok(`No files match ${input.pattern} in ${shownBase}.`, { meta: { count: 0 } });
    const sorted = await newestFirst(found, (entry) => entry.abs);
    const lines = sorted.slice(0, MAX_RESULTS).map((entry) => relativePosix(entry.abs, ctx.cwd));
    if (sorted.length > MAX_RESULTS) {
      lines.push("", `(${MAX_RESULTS} of ${sorted.length} files shown, the newest: narrow the pattern or path to see the rest)`);
    }
    return ok(lines.join("\n"), { meta: { count: sorted.length } });
  },
});

/** The pattern relative to the base: `./` dropped, an absolute pattern inside the base made relative. */
function patternFrom(pattern: string, base: string): string {
  if (isAbsolute(pattern) && isInside(pattern.replace(/[*?[{].*$/, ""), base)) return relativePosix(pattern, base);
  return pattern.replace(/^\.\//, "");
}
