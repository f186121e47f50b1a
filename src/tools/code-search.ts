import { z } from "zod";
import type { CodeHit } from "./code-search-backend.ts";
import description from "./code-search.txt" with { type: "text" };
import { fail, ok } from "./result.ts";
import { defineTool } from "./tool.ts";

const DEFAULT_LIMIT = 8;
const MAX_LIMIT = 30;

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    query: z.string().trim().min(1),
    path: z.string().trim().min(1).optional().describe("Directory, file or glob"),
    limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`Default ${DEFAULT_LIMIT}`),
  });

/** code_search: the project's code index, each passage citing path:lines so the model can read on. */
export const codeSearchTool = defineTool({
  name: "code_search",
  description,
  schema,
  permission: "read",
  needs: ["code"],
  kind: "search",
  title: (input) => `Search the code for ${JSON.stringify(input.query)}${input.path ? ` in ${input.path}` : ""}`,
  more: "ask for fewer results (limit) or narrow the path",
  async execute(input, ctx) {
    if (!ctx.code) return fail("This project is not indexed: code_search needs an embedding model (embedding: in config.yaml); use grep meanwhile.");
    const limit = input.limit ?? DEFAULT_LIMIT;
    let answer;
    try {
      answer = await ctx.code.search(input.query, { limit, ...(input.path ? { path: input.path } : {}) }, ctx.signal);
    } catch (error) {
      return fail(`The code index could not be searched: ${error instanceof Error ? error.message : String(error)}. grep finds the exact words meanwhile.`);
    }
    const said = answer.notes.length > 0 ? `Code index: ${answer.notes.join("; ")}.\n\n` : "";
    const blocks = answer.hits.map((h, i) => `[${i + 1}] ${cite(h)} (score ${h.score.toFixed(3)})\n${h.text}`);
    const grep = answer.grep.length > 0 ? `Lines with the query's words in files not yet indexed:\n${answer.grep.map((h) => `${cite(h)}: ${h.text}`).join("\n")}` : "";
    const count = answer.hits.length + answer.grep.length;
    if (count === 0) {
      return ok(`${said}Nothing in the project's index matches ${JSON.stringify(input.query)}${input.path ? ` under ${input.path}` : ""}: try other words, a wider path, or grep.`, { meta: { count: 0 } });
    }
    const body = [blocks.join("\n\n"), grep].filter((part) => part !== "").join("\n\n");
    return ok(`${said}${body}\n\nRead a file with read (offset = the first line) for more around a result.`, {
      meta: { count, sources: [...answer.hits, ...answer.grep].map(cite) },
    });
  },
});

/** path:first-last, on one line: a control character in a file's name as its escape. */
function cite(h: CodeHit): string {
  const path = h.path.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => JSON.stringify(c).slice(1, -1));
  return `${path}:${h.startLine}-${h.endLine}`;
}
