/** A Markdown file's YAML frontmatter (between `---` lines at the top) and its body. */
export type Parsed = { meta: Record<string, unknown>; body: string };

export class FrontmatterError extends Error {
  override name = "FrontmatterError";
}

/** Splits frontmatter from body; a file without frontmatter is all body. A broken one throws. */
export function parseFrontmatter(text: string): Parsed {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  if (!normalized.startsWith("---\n")) return { meta: {}, body: normalized };
  const end = normalized.indexOf("\n---", 4);
  if (end === -1) throw new FrontmatterError("the frontmatter has no closing ---");
  const yaml = normalized.slice(4, end);
  const after = normalized.slice(end + 4).replace(/^[^\n]*\n?/, "");
  let meta: unknown;
  try {
    meta = Bun.YAML.parse(yaml);
  } catch (error) {
    throw new FrontmatterError(`the frontmatter is not valid YAML (${error instanceof Error ? error.message : String(error)})`);
  }
  if (meta === null || meta === undefined) return { meta: {}, body: after };
  if (typeof meta !== "object" || Array.isArray(meta)) throw new FrontmatterError("the frontmatter must be a mapping of keys to values");
  return { meta: meta as Record<string, unknown>, body: after };
}
