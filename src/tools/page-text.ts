// Loaded with the first HTML page: a start that fetches nothing never reads its converter.
const converter = () => require("./html-markdown.ts") as typeof import("./html-markdown.ts");

/** Types read as they are: text, JSON, XML, scripts, YAML. */
const TEXTUAL = /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|ecmascript|x-yaml|yaml|toml|x-ndjson|ndjson|x-www-form-urlencoded)\b)/;
const HTML = /^(text\/html|application\/xhtml\+xml)\b/;

/** Why a body of this type is not read (a binary), or null when it is text fetch can show. */
export function refusedType(contentType: string, url: string): string | null {
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "" || TEXTUAL.test(type)) return null;
  return `${url} is ${type}, not text: fetch reads web pages, plain text and JSON.`;
}

/** The body as the model reads it: HTML as markdown (with its title), anything else as its text. */
export function pageText(bytes: Uint8Array, contentType: string, url: string): { text: string; title: string | null } | { problem: string } {
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  const head = bytes.subarray(0, 1024);
  if (type === "" && head.includes(0)) return { problem: `${url} sent binary content, not text: fetch reads web pages, plain text and JSON.` };
  const text = decoder(charset(contentType)).decode(bytes);
  const looksHtml = type === "" && /^\s*(<!doctype html|<html)/i.test(text);
  if (!HTML.test(type) && !looksHtml) return { text, title: null };
  const page = converter().htmlToMarkdown(text, url);
  return { text: page.markdown, title: page.title };
}

/** The charset the type names, when TextDecoder knows it; else UTF-8. */
function charset(contentType: string): string {
  const named = /charset="?([\w-]+)"?/i.exec(contentType)?.[1];
  if (!named) return "utf-8";
  try {
    return decoder(named).encoding;
  } catch {
    return "utf-8";
  }
}

/** TextDecoder for a label a server sent (its type lists only the labels it knows by name). */
const decoder = (label: string): TextDecoder => new (TextDecoder as new (label: string) => TextDecoder)(label);
