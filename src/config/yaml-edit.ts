/**
 * Sets one dotted key in a YAML text by editing only the lines of that key, so that the person's
 * comments, order and spacing stay as they wrote them. Block-style YAML only: anything it cannot
 * edit that way (flow style, anchors, a key written twice) gives null, and the caller writes the
 * whole file instead. The caller checks that the edited text reads back as intended.
 */
export function editYamlKey(text: string, parts: readonly string[], value: unknown): string | null {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines.at(-1) === "") lines.pop();
  let start = 0;
  let end = lines.length;
  let indent = 0;
  for (let depth = 0; depth < parts.length; depth++) {
    const key = parts[depth] ?? "";
    const found = findKey(lines, start, end, indent, key);
    if (found === "ambiguous") return null;
    if (found === null) {
      // Not there: the rest of the path goes at the end of this block, as one new block.
      const block = render(parts.slice(depth), value, indent);
      if (block === null) return null;
      lines.splice(end, 0, ...block);
      return `${lines.join("\n")}\n`;
    }
    const childEnd = blockEnd(lines, found + 1, end, indent);
    if (depth === parts.length - 1) {
      const block = render([key], value, indent);
      if (block === null) return null;
      lines.splice(found, childEnd - found, ...block, ...trailingBlank(lines, found + 1, childEnd));
      return `${lines.join("\n")}\n`;
    }
    const rest = (lines[found] ?? "").slice(indent + key.length + 1).trim();
    if (rest !== "" && !rest.startsWith("#")) return null; // a scalar or a flow mapping where a block should be
    const childIndent = firstIndent(lines, found + 1, childEnd);
    start = found + 1;
    end = childEnd;
    indent = childIndent ?? indent + 2;
  }
  return null;
}

const KEY_LINE = /^( *)("[^"]*"|'[^']*'|[^\s#'"{[][^:#]*?)\s*:(\s|$)/;

function keyOf(line: string): { indent: number; key: string } | null {
  const match = KEY_LINE.exec(line);
  if (!match) return null;
  const raw = match[2] ?? "";
  const key = raw.startsWith('"') || raw.startsWith("'") ? raw.slice(1, -1) : raw;
  return { indent: (match[1] ?? "").length, key };
}

function findKey(lines: string[], start: number, end: number, indent: number, key: string): number | null | "ambiguous" {
  let at: number | null = null;
  for (let i = start; i < end; i++) {
    const line = lines[i] ?? "";
    if (/^\s*(#|$)/.test(line)) continue;
    if (/^\s*(---|\.\.\.|&|\*|-\s)/.test(line) && leading(line) <= indent) return "ambiguous";
    const found = keyOf(line);
    if (!found || found.indent !== indent) continue;
    if (found.key === key) {
      if (at !== null) return "ambiguous";
      at = i;
    }
  }
  return at;
}

/** Where the block under a key at `indent` ends: the next line as shallow or shallower (blank lines and comments belong to nothing). */
function blockEnd(lines: string[], from: number, end: number, indent: number): number {
  let last = from;
  for (let i = from; i < end; i++) {
    const line = lines[i] ?? "";
    if (/^\s*(#|$)/.test(line)) continue;
    if (leading(line) <= indent) return last;
    last = i + 1;
  }
  return last;
}

/** Blank lines and comments inside the replaced block are kept after it. */
function trailingBlank(lines: string[], from: number, end: number): string[] {
  return lines.slice(from, end).filter((line) => /^\s*(#|$)/.test(line));
}

function firstIndent(lines: string[], from: number, end: number): number | null {
  for (let i = from; i < end; i++) {
    const line = lines[i] ?? "";
    if (!/^\s*(#|$)/.test(line)) return leading(line);
  }
  return null;
}

function leading(line: string): number {
  return line.length - line.trimStart().length;
}

/** `parts` as nested keys ending in `value`, at `indent`, two spaces a level. */
function render(parts: readonly string[], value: unknown, indent: number): string[] | null {
  const [key, ...rest] = parts;
  if (key === undefined) return null;
  const pad = " ".repeat(indent);
  const name = /^[A-Za-z0-9_.-]+$/.test(key) ? key : JSON.stringify(key);
  if (rest.length > 0) {
    const inner = render(rest, value, indent + 2);
    return inner && [`${pad}${name}:`, ...inner];
  }
  const written = Bun.YAML.stringify(value, null, 2);
  if (typeof written !== "string") return null;
  const body = written.replace(/\n$/, "");
  const scalar = value === null || typeof value !== "object" || (Array.isArray(value) && value.length === 0) || (!Array.isArray(value) && Object.keys(value).length === 0);
  if (scalar && !body.includes("\n")) return [`${pad}${name}: ${body}`];
  return [`${pad}${name}:`, ...body.split("\n").map((line) => `${pad}  ${line}`)];
}

/**
 * Takes one dotted key (and the block under it) out of a YAML text, every other line kept as it
 * was, its comments too. Null when the key cannot be found that way; the caller checks the result.
 */
export function removeYamlKey(text: string, parts: readonly string[]): string | null {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines.at(-1) === "") lines.pop();
  let start = 0;
  let end = lines.length;
  let indent = 0;
  for (let depth = 0; depth < parts.length; depth++) {
    const key = parts[depth] ?? "";
    const found = findKey(lines, start, end, indent, key);
    if (found === null || found === "ambiguous") return null;
    const childEnd = blockEnd(lines, found + 1, end, indent);
    if (depth === parts.length - 1) {
      lines.splice(found, childEnd - found, ...trailingBlank(lines, found + 1, childEnd));
      return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
    }
    const childIndent = firstIndent(lines, found + 1, childEnd);
    if (childIndent === null) return null;
    start = found + 1;
    end = childEnd;
    indent = childIndent;
  }
  return null;
}
