import { stat } from "node:fs/promises";
import { z } from "zod";
import { type WalkEntry, walk } from "../project/ignore-walk.ts";
import description from "./list.txt" with { type: "text" };
import { displayPath, resolvePath } from "./paths.ts";
import { fail, ok } from "./result.ts";
import { secretsUnder } from "./secrets.ts";
import { defineTool } from "./tool.ts";

const MAX_ENTRIES = 500;

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    path: z.string().optional(),
    ignore: z.array(z.string()).optional().describe("More to leave out, as in .gitignore"),
  });

/** list: a directory as an indented tree, honouring .gitignore, breadth first within a cap. */
export const listTool = defineTool({
  name: "list",
  description,
  brief: "Lists a directory as a tree (directories end in /).",
  schema,
  permission: "read",
  needs: ["files"],
  kind: "read",
  title: (input, ctx) => `List ${displayPath(resolvePath(input.path ?? ".", ctx.cwd), ctx.root)}`,
  paths: (input, ctx) => [resolvePath(input.path ?? ".", ctx.cwd)],
  more: "list a subdirectory, or use glob with a pattern",
  async execute(input, ctx) {
    const base = resolvePath(input.path ?? ".", ctx.cwd);
    const shown = displayPath(base, ctx.root);
    const info = await stat(base).catch(() => null);
    if (!info) return fail(`${shown} does not exist.`);
    if (!info.isDirectory()) return fail(`${shown} is a file, not a directory: use read to see it.`);
    const entries: WalkEntry[] = [];
    let more = false;
    // Breadth first: a cap cuts the deepest levels, never the top ones.
    for await (const entry of walk(base, { root: ctx.root, ignore: input.ignore, signal: ctx.signal, leaveOut: secretsUnder(base, ctx) })) {
      if (entries.length === MAX_ENTRIES) {
        more = true;
        break;
      }
      entries.push(entry);
    }
    const header = shown === "." ? "./" : `${shown}/`;
    if (entries.length === 0) return ok(`${header}\n(empty, or everything in it is ignored)`, { meta: { entries: 0 } });
    const lines = [header, ...renderTree(entries, more)];
    if (more) lines.push("", `(the first ${MAX_ENTRIES} entries are shown, shallow levels first: list a subdirectory to see more)`);
    return ok(lines.join("\n"), { meta: { entries: entries.length, truncated: more } });
  },
});

type Node = { name: string; entry: WalkEntry; children: Node[] };

/**
 * Indents entries two spaces a level, directories before files, each group by name. When the
 * list was cut, a directory with nothing shown under it ends in `…`: its content was not listed.
 */
function renderTree(entries: WalkEntry[], cut: boolean): string[] {
  const roots: Node[] = [];
  const dirs = new Map<string, Node>();
  for (const entry of entries) {
    const node: Node = { name: entry.rel.split("/").at(-1) ?? entry.rel, entry, children: [] };
    const parent = entry.rel.includes("/") ? dirs.get(entry.rel.slice(0, entry.rel.lastIndexOf("/"))) : undefined;
    (parent ? parent.children : roots).push(node);
    if (entry.type === "dir") dirs.set(entry.rel, node);
  }
  const out: string[] = [];
  const visit = (nodes: Node[], depth: number): void => {
    for (const node of [...nodes].sort(dirsFirst)) {
      const unlisted = cut && node.entry.type === "dir" && node.children.length === 0 ? " …" : "";
      const suffix = node.entry.type === "dir" ? `/${unlisted}` : node.entry.type === "symlink" ? "@" : "";
      out.push(`${"  ".repeat(depth + 1)}${node.name}${suffix}`);
      visit(node.children, depth + 1);
    }
  };
  visit(roots, 0);
  return out;
}

function dirsFirst(a: Node, b: Node): number {
  const ad = a.entry.type === "dir" ? 0 : 1;
  const bd = b.entry.type === "dir" ? 0 : 1;
  if (ad !== bd) return ad - bd;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
