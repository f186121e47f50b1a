import { readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { displayPath } from "./paths.ts";

/** The most places or symbols one answer lists. */
const MAX_LISTED = 100;

const SYMBOL_KINDS = ["", "file", "module", "namespace", "package", "class", "method", "property", "field", "constructor", "enum", "interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"];

type Range = { start: { line: number; character: number } };
type Location = { uri: string; range?: Range };

/**
 * Why a file's text is not shown without asking (as read asks for it: a protected file, one
 * outside the project), or null where it may be. The model reads it, asked, to see it.
 */
export type Withheld = (path: string) => string | null;

/** Locations (definition, references) as `path:line:col  the line's text`, one a line; a withheld file's text left out. */
export function placesText(answer: unknown, root: string, withheld: Withheld): string[] {
  const places = locations(answer);
  const lines = places.slice(0, MAX_LISTED).map((place) => {
    const path = pathOf(place.uri);
    const line = (place.range?.start.line ?? 0) + 1;
    const why = path ? withheld(path) : null;
    if (why) return `${placeName(place, root)}  (${why}: its text is left out; read it to see it)`;
    const source = path ? lineOf(path, line) : "";
    return `${placeName(place, root)}${source ? `  ${source}` : ""}`;
  });
  return [...lines, ...more(places.length)];
}

/** The first place of a definition answer whose file's text is withheld, as `path:line:col (why)`, or null. */
export function withheldPlace(answer: unknown, root: string, withheld: Withheld): string | null {
  for (const place of locations(answer)) {
    const path = pathOf(place.uri);
    const why = path ? withheld(path) : null;
    if (why) return `${placeName(place, root)} (${why})`;
  }
  return null;
}

function locations(answer: unknown): Location[] {
  const items = Array.isArray(answer) ? answer : answer ? [answer] : [];
  return items.flatMap((item) => {
    const place = asLocation(item);
    return place ? [place] : [];
  });
}

/** A place as path:line:col (1-based), the path as the model knows it. */
function placeName(place: Location, root: string): string {
  const path = pathOf(place.uri);
  const shown = path ? displayPath(path, root) : place.uri;
  return place.range ? `${shown}:${place.range.start.line + 1}:${place.range.start.character + 1}` : shown;
}

/** A hover's contents as plain text. */
export function hoverText(answer: unknown): string {
  const contents = (answer as { contents?: unknown } | null)?.contents;
  const parts = Array.isArray(contents) ? contents : contents === undefined ? [] : [contents];
  return parts
    .map((part) => (typeof part === "string" ? part : typeof (part as { value?: unknown })?.value === "string" ? (part as { value: string }).value : ""))
    .filter((text) => text.trim() !== "")
    .join("\n\n")
    .trim();
}

/** Symbols (a document's, nested; or the workspace's) as `kind name path:line:col`, children indented; those of withheld files left out, as grep leaves them out. */
export function symbolsText(answer: unknown, root: string, path: string, withheld: Withheld): string[] {
  const out: string[] = [];
  let total = 0;
  const walk = (items: unknown, depth: number) => {
    if (!Array.isArray(items)) return;
    for (const item of items) {
      const s = item as { name?: unknown; kind?: unknown; location?: Location; selectionRange?: Range; range?: Range; children?: unknown; containerName?: unknown };
      if (typeof s?.name !== "string") continue;
      const elsewhere = s.location ? pathOf(s.location.uri) : null;
      if (elsewhere && withheld(elsewhere)) continue;
      total++;
      if (out.length < MAX_LISTED) {
        // A workspace symbol says where it is; a document's is in the file asked about.
        const place = s.location ?? { uri: pathToFileURL(path).href, ...((s.selectionRange ?? s.range) ? { range: s.selectionRange ?? s.range } : {}) };
        out.push(`${"  ".repeat(depth)}${SYMBOL_KINDS[typeof s.kind === "number" ? s.kind : 0] || "symbol"} ${s.name} ${placeName(place, root)}`);
      }
      walk(s.children, depth + 1);
    }
  };
  walk(answer, 0);
  return [...out, ...more(total)];
}

function more(total: number): string[] {
  return total > MAX_LISTED ? [`… and ${total - MAX_LISTED} more`] : [];
}

function asLocation(item: unknown): Location | null {
  const l = item as { uri?: unknown; range?: Range; targetUri?: unknown; targetSelectionRange?: Range; targetRange?: Range } | null;
  if (typeof l?.uri === "string") return { uri: l.uri, ...(l.range ? { range: l.range } : {}) };
  if (typeof l?.targetUri === "string") {
    const range = l.targetSelectionRange ?? l.targetRange;
    return { uri: l.targetUri, ...(range ? { range } : {}) };
  }
  return null;
}

function pathOf(uri: string): string | null {
  try {
    return uri.startsWith("file:") ? fileURLToPath(uri) : null;
  } catch {
    return null;
  }
}

/** The line's text, trimmed and cut short, or "" where the file cannot be read. */
function lineOf(path: string, line: number): string {
  try {
    const text = readFileSync(path, "utf8").split("\n")[line - 1] ?? "";
    const trimmed = text.trim();
    return trimmed.length > 160 ? `${trimmed.slice(0, 160)}…` : trimmed;
  } catch {
    return "";
  }
}
