import { z } from "zod";
import type { Passage } from "./library-backend.ts";
import description from "./library.txt" with { type: "text" };
import { displayPath } from "./paths.ts";
import { fail, ok } from "./result.ts";
import { defineTool } from "./tool.ts";

const DEFAULT_LIMIT = 5;
const MAX_LIMIT = 20;

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    query: z.string().trim().min(1).describe("A question, or the words the passage would use"),
    limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`Passages; default ${DEFAULT_LIMIT}`),
  });

/** library: passages of the person's documents, each citing its file and lines so the model can read on. */
export const libraryTool = defineTool({
  name: "library",
  description,
  schema,
  permission: "read",
  needs: ["library"],
  kind: "search",
  title: (input) => `Search the library for ${JSON.stringify(input.query)}`,
  more: "ask for fewer passages (limit)",
  async execute(input, ctx) {
    if (!ctx.library) return fail("No library is configured for this session.");
    let passages: Passage[];
    let notes: string[] = [];
    try {
      notes = (await ctx.library.refresh?.(ctx.signal)) ?? [];
      passages = await ctx.library.search(input.query, input.limit ?? DEFAULT_LIMIT, ctx.signal);
    } catch (error) {
      return fail(`The library could not be searched: ${error instanceof Error ? error.message : String(error)}`);
    }
    const said = notes.length > 0 ? `Library: ${notes.join("; ")}.\n\n` : "";
    if (passages.length === 0) return ok(`${said}Nothing in the library matches ${JSON.stringify(input.query)}.`, { meta: { count: 0 } });
    const blocks = passages.map((p, i) => `[${i + 1}] ${cite(p, ctx.root)} (score ${p.score.toFixed(3)})\n${p.text}`);
    const hint = ctx.library.kind === "lembas"
      ? "Sources are the documents of the person's account, as its instance names them."
      : "Sources are path:lines; read a file with read (offset = the first line) for more around a passage.";
    return ok(`${said}${blocks.join("\n\n")}\n\n${hint}`, { meta: { count: passages.length, sources: passages.map((p) => cite(p, ctx.root)) } });
  },
});

function cite(p: Passage, root: string): string {
  if (p.citation !== undefined) return escaped(p.citation);
  return `${escaped(displayPath(p.path, root))}:${p.startLine}-${p.endLine}`;
}

/** A source on one line: a control character (a newline in a file's name, an instance's title) as its escape, so no source reads as another passage. */
function escaped(source: string): string {
  return source.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => JSON.stringify(c).slice(1, -1));
}
