import { type Chunk, chunkText, isMarkdown, MAX_CHUNK_CHARS } from "../library/chunker.ts";

/**
 * A source file cut along its structure: each top-level declaration (a function, a class, a block)
 * with the comments and decorators above it is a unit, found by bracket depth and indentation (an
 * honest splitter for brace languages and indentation ones alike, no parser), a chunk of its own
 * (a one-liner joins the one before); one larger than `maxChars` is cut at its own members (a
 * class's methods), then by lines. Markdown goes by headings (the library's chunker).
 */
export function codeChunks(text: string, path: string, maxChars = MAX_CHUNK_CHARS): Chunk[] {
  if (isMarkdown(path)) return chunkText(text, { markdown: true, maxChars });
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  const out: Chunk[] = [];
  for (const unit of pack(units(lines, 0, lines.length, 0), maxChars)) out.push(...cut(lines, unit, maxChars, 1));
  return out.filter((c) => c.text.trim() !== "");
}

type Span = { start: number; end: number; chars: number };

/** Spans of lines [start, end) that begin where a line at `level` starts a declaration. */
function units(lines: readonly string[], start: number, end: number, level: number): Span[] {
  const spans: Span[] = [];
  let depth = 0;
  // At the top, the first line's indentation; inside a declaration, its first member's (after its header).
  let indent: number | null = null;
  let current: Span | null = null;
  let leading = false;
  for (let i = start; i < end; i++) {
    const line = lines[i] ?? "";
    const trimmed = line.trim();
    const own = line.length - line.trimStart().length;
    if (trimmed !== "" && (level === 0 || i > start)) indent ??= own;
    // Brace languages nest members a bracket deeper; indentation ones at the same depth, further in.
    const atLevel = level === 0 ? depth === 0 : i > start && depth <= level;
    const opens = trimmed !== "" && atLevel && own <= (indent ?? 0) && !/^[)\]}]/.test(trimmed);
    if (opens && !leading) {
      if (current) spans.push(current);
      current = { start: i, end: i + 1, chars: line.length + 1 };
    } else if (current) {
      current.end = i + 1;
      current.chars += line.length + 1;
    } else {
      current = { start: i, end: i + 1, chars: line.length + 1 };
    }
    // A comment or decorator at this level belongs with the declaration under it.
    if (trimmed !== "") leading = opens && /^(\/\/|\/\*|\*|#(?!include)|@|--|"""|''')/.test(trimmed);
    depth = Math.max(0, depth + balance(line));
  }
  if (current) spans.push(current);
  return spans;
}

/** A unit this small (a one-liner, a short constant) goes with the one before it rather than alone. */
const SMALL_UNIT = 64;

/** Each unit its own chunk, a small one joined to the one before it when they fit: a citation names one declaration's lines. */
function pack(spans: readonly Span[], maxChars: number): Span[] {
  const out: Span[] = [];
  for (const span of spans) {
    const last = out.at(-1);
    if (last && span.chars < SMALL_UNIT && last.chars + span.chars <= maxChars) {
      last.end = span.end;
      last.chars += span.chars;
    } else out.push({ ...span });
  }
  return out;
}

/** A span as chunks: whole when it fits; else cut at its members one level in, else by lines. */
function cut(lines: readonly string[], span: Span, maxChars: number, level: number): Chunk[] {
  if (span.chars <= maxChars) return [chunkOf(lines, span)];
  const inner = level <= 2 ? units(lines, span.start, span.end, level) : [];
  if (inner.length > 1) return pack(inner, maxChars).flatMap((s) => cut(lines, s, maxChars, level + 1));
  return chunkText(lines.slice(span.start, span.end).join("\n"), { maxChars }).map((c) => ({ ...c, startLine: c.startLine + span.start, endLine: c.endLine + span.start }));
}

function chunkOf(lines: readonly string[], span: Span): Chunk {
  return { text: lines.slice(span.start, span.end).join("\n"), startLine: span.start + 1, endLine: span.end };
}

/** Opening minus closing brackets on a line, strings and line comments left out. */
function balance(line: string): number {
  const code = line.replace(/"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`/g, "").replace(/\/\/.*$/, "");
  let n = 0;
  for (const c of code) {
    if (c === "{" || c === "(" || c === "[") n++;
    else if (c === "}" || c === ")" || c === "]") n--;
  }
  return n;
}
