import { z } from "zod";
import description from "./lsp.txt" with { type: "text" };
import { isInside } from "../paths.ts";
import { displayPath, resolvePath } from "./paths.ts";
import { fail, ok } from "./result.ts";
import type { LanguageServerAccess } from "./server-access.ts";
import { defineTool } from "./tool.ts";

const OPERATIONS = ["definition", "references", "hover", "symbols", "workspace_symbols"] as const;
type Operation = (typeof OPERATIONS)[number];

const METHODS: Record<Operation, string> = {
  definition: "textDocument/definition",
  references: "textDocument/references",
  hover: "textDocument/hover",
  symbols: "textDocument/documentSymbol",
  workspace_symbols: "workspace/symbol",
};

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    operation: z.enum(OPERATIONS),
    path: z.string().min(1),
    line: z.number().int().min(1).optional(),
    col: z.number().int().min(1).optional(),
    query: z.string().optional(),
  });

/** lsp: what the project's language server knows of a symbol or a file, places as path:line:col. */
export const lspTool = defineTool({
  name: "lsp",
  description,
  schema,
  permission: "read",
  needs: ["lsp", "files"],
  kind: "search",
  title: (input, ctx) => `${input.operation.replace("_", " ")} in ${displayPath(resolvePath(input.path, ctx.cwd), ctx.root)}${input.line ? `:${input.line}${input.col ? `:${input.col}` : ""}` : ""}`,
  paths: (input, ctx) => [resolvePath(input.path, ctx.cwd)],
  async execute(input, ctx) {
    const abs = resolvePath(input.path, ctx.cwd);
    const shown = displayPath(abs, ctx.root);
    if (!ctx.lsp) return fail("No language server may run in this session (the project is not trusted: lembas trust). Use grep to find the symbol.");
    const atPosition = input.operation === "definition" || input.operation === "references" || input.operation === "hover";
    if (atPosition && (input.line === undefined || input.col === undefined)) return fail(`${input.operation} needs line and col (1-based) of the symbol in ${shown}: read the file to find them.`);
    const position = { line: (input.line ?? 1) - 1, character: (input.col ?? 1) - 1 };
    const params: Record<string, unknown> =
      input.operation === "workspace_symbols" ? { query: input.query ?? "" } : input.operation === "symbols" ? {} : input.operation === "references" ? { position, context: { includeDeclaration: true } } : { position };
    let asked: { answer: unknown } | null;
    try {
      asked = await ctx.lsp.request(abs, METHODS[input.operation], params);
    } catch (error) {
      return fail(`The language server could not answer for ${shown}: ${error instanceof Error ? error.message : String(error)}. Use grep or read instead.`);
    }
    if (!asked) return fail(`No language server handles ${shown} (none is installed for it, or it is left off). Use grep or read instead.`);
    // What read would ask for is not shown unasked: a protected file's lines, a file outside the project.
    const withheld = (path: string) => {
      const protection = ctx.files.protection(path);
      if (protection) return protection === "secret" ? "a secret file" : "a protected file";
      return isInside(path, ctx.root) ? null : "outside the project";
    };
    if (input.operation === "hover") {
      const hidden = await hoverHidden(ctx.lsp, abs, params, ctx.root, withheld);
      if (hidden) return ok(`The symbol at ${shown}:${input.line}:${input.col} is defined in ${hidden}: its hover is left out. Read that file to see it (read asks first).`, { meta: { count: 0 } });
    }
    const lines = await answerLines(input.operation, asked.answer, ctx.root, abs, withheld);
    if (lines.length === 0) return ok(`The language server knows no ${input.operation.replace("_", " ")} ${atPosition ? `at ${shown}:${input.line}:${input.col}` : `for ${shown}`}.`, { meta: { count: 0 } });
    return ok(lines.join("\n"), { meta: { count: lines.length } });
  },
});

type Withheld = (path: string) => string | null;

/**
 * Where the symbol a hover is about is defined, when that file's text is withheld: a hover quotes
 * its declaration (a secret's value in its type). Null where the definition may be shown, or none is known.
 */
async function hoverHidden(lsp: LanguageServerAccess, abs: string, params: Record<string, unknown>, root: string, withheld: Withheld): Promise<string | null> {
  const { withheldPlace } = await import("./lsp-answers.ts");
  const asked = await lsp.request(abs, METHODS.definition, params).catch(() => null);
  return asked ? withheldPlace(asked.answer, root, withheld) : null;
}

/** The answer as lines of text (its module loaded at the first call: most sessions make none). */
async function answerLines(operation: Operation, answer: unknown, root: string, abs: string, withheld: Withheld): Promise<string[]> {
  const { hoverText, placesText, symbolsText } = await import("./lsp-answers.ts");
  switch (operation) {
    case "definition":
    case "references":
      return placesText(answer, root, withheld);
    case "hover": {
      const text = hoverText(answer);
      return text ? [text] : [];
    }
    case "symbols":
    case "workspace_symbols":
      return symbolsText(answer, root, abs, withheld);
  }
}
