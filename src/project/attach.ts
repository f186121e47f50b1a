import { closeSync, existsSync, openSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { MAX_RESULT_CHARS } from "../result-bound.ts";
import { LineMarks, type Scan, type ScanEnd, scanLines } from "./lines.ts";
import { isProtected, type ProtectedPaths, protection } from "./protected.ts";
import { isInside } from "../paths.ts";
import { imageTypeOf, MAX_IMAGE_BYTES } from "../images.ts";

/** The most of one file an @mention attaches; a larger one is cut with a note. */
const MAX_LINES = 2000;
/** The most characters one file mention attaches, as much as one tool result may carry. */
const MAX_BYTES = MAX_RESULT_CHARS;
const MAX_ENTRIES = 200;
/** The most text the mentions of one prompt attach together; what is past it is said, not attached. */
export const MAX_ATTACHED = 4 * MAX_RESULT_CHARS;
/** How far into a file a line range is looked for (streamed, never held). */
const MAX_RANGE_READ = 64 * 1024 * 1024;

/** One @path in what the person typed. */
export type Mention = { raw: string; path: string; range: { start: number; end: number } | null; dir: boolean };

/**
 * Finds @path mentions: an @ at the start or after a space or an opening bracket, then the path
 * up to an unescaped space. `\ ` is a space and `\#` a # in a name (as the picker writes them); an
 * unescaped `#10-20` (or `#10`) at the end is a line range; a trailing / asks for a listing.
 */
export function findMentions(text: string): Mention[] {
  const mentions: Mention[] = [];
  const re = /(^|[\s([{"'])@((?:\\.|[^\s\\])+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const token = m[2] ?? "";
    let rest = token.replace(/[,;:!?)\]}'"]+$/, "");
    let range: Mention["range"] = null;
    const ranged = /(?<!\\)#(\d+)(?:-(\d+))?$/.exec(rest);
    if (ranged?.[1]) {
      const start = Number(ranged[1]);
      range = { start, end: ranged[2] ? Number(ranged[2]) : start };
      rest = rest.slice(0, ranged.index);
    }
    const path = rest.replace(/\\(.)/g, "$1");
    if (!path) continue;
    mentions.push({ raw: `@${token}`, path, range, dir: path.endsWith("/") });
  }
  return mentions;
}

export type Attached = {
  /** The typed text, then what the mentions attached. */
  text: string;
  /** Images mentioned (for a vision model), by path. */
  images: { name: string; mimeType: string; size: number; path: string }[];
  /** Files whose content was attached: they count as read. */
  read: string[];
  /** Mentions left as plain text, and why (not shown to the model). */
  skipped: { mention: string; why: string }[];
};

export type AttachRules = {
  cwd: string;
  /** The session's project: a mention must resolve inside it. */
  root: string;
  /** The device's remote roots, where they apply (the link); null elsewhere. */
  roots: string[] | null;
  protectedPaths: ProtectedPaths;
};

/**
 * Attaches what the @mentions name, as the terminal's expander does: only a path that is —
 * symlinks followed — inside the project (and the remote roots, where they apply), not protected,
 * and there. Anything else stays plain text and is never read. `files` are mentions made from
 * elsewhere than the text (an editor's attached files), attached after the typed ones. `held`: the
 * text of files as the person has them (an editor's unsaved buffers, heldMentions), by real path,
 * attached instead of the disk's.
 */
export function expandMentions(text: string, rules: AttachRules, files: readonly Mention[] = [], held: ReadonlyMap<string, string> = new Map()): Attached {
  const blocks: string[] = [];
  const images: Attached["images"] = [];
  const read: string[] = [];
  const skipped: Attached["skipped"] = [];
  const seen = new Set<string>();
  const marks = new Map<string, LineMarks>();
  const mentions = [...findMentions(text), ...files];
  // Most prompts mention nothing: the project's links are resolved only for one that does.
  if (mentions.length === 0) return { text, images, read, skipped };
  const root = real(rules.root) ?? resolve(rules.root);
  const leftOut: string[] = [];
  let room = MAX_ATTACHED;
  const add = (block: string): void => {
    blocks.push(block);
    room -= block.length;
  };
  for (const mention of mentions) {
    const target = allowed(mention, rules, root);
    if (typeof target !== "string") {
      skipped.push({ mention: mention.raw, why: target.why });
      continue;
    }
    const key = `${target}#${mention.range?.start ?? ""}-${mention.range?.end ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const shown = relative(root, target).split(sep).join("/") || ".";
    const stat = statSync(target);
    const textual = stat.isDirectory() || (stat.isFile() && !imageTypeOf(target));
    if (textual && room <= 0) {
      leftOut.push(mention.raw);
      continue;
    }
    if (stat.isDirectory()) {
      add(listing(target, shown, (path) => protection(path, root, rules.protectedPaths) === "secret"));
      continue;
    }
    if (!stat.isFile()) {
      skipped.push({ mention: mention.raw, why: "not a regular file" });
      continue;
    }
    const mimeType = imageTypeOf(target);
    if (mimeType && stat.size > MAX_IMAGE_BYTES) {
      blocks.push(`(${shown} is an image of ${stat.size} bytes: too large to attach)`);
      continue;
    }
    if (mimeType) {
      images.push({ name: shown, mimeType, size: stat.size, path: target });
      blocks.push(`(image attached: ${shown}, ${stat.size} bytes)`);
      continue;
    }
    const fileMarks = marks.get(target) ?? new LineMarks();
    marks.set(target, fileMarks);
    add(fileBlock(target, shown, mention.range, stat.size, Math.min(MAX_BYTES, room), fileMarks, held.get(target)));
    read.push(target);
  }
  if (leftOut.length > 0) blocks.push(leftOutNote(leftOut));
  return { text: blocks.length > 0 ? `${text}\n\n${blocks.join("\n\n")}` : text, images, read, skipped };
}

/** The mentions past the prompt's limit, said once (a few by name): they are not read. */
function leftOutNote(mentions: string[]): string {
  const named = mentions.slice(0, 10).join(" ");
  const more = mentions.length > 10 ? ` and ${mentions.length - 10} more` : "";
  return `(not attached, as this prompt's attachments reached their limit of ${MAX_ATTACHED} characters: ${named}${more}; read them with a tool)`;
}

/**
 * The text the person has of each text file the mentions would attach, as `read` gives it (an
 * editor's unsaved buffer), by real path: for expandMentions. Only files it would attach are
 * asked for (inside the project, not protected, not images nor binary); those `read` has no copy
 * of are left to the disk.
 */
export async function heldMentions(
  text: string,
  rules: AttachRules,
  files: readonly Mention[],
  read: (path: string) => Promise<{ text: string } | { fallback: string } | null>,
): Promise<Map<string, string>> {
  const mentions = [...findMentions(text), ...files];
  if (mentions.length === 0) return new Map();
  const root = real(rules.root) ?? resolve(rules.root);
  const targets = new Set<string>();
  for (const mention of mentions) {
    const target = allowed(mention, rules, root);
    if (typeof target !== "string" || imageTypeOf(target) || !statSync(target).isFile() || binary(target)) continue;
    targets.add(target);
  }
  const held = new Map<string, string>();
  await Promise.all(
    [...targets].map(async (target) => {
      const got = await read(target);
      if (got && "text" in got) held.set(target, got.text);
    }),
  );
  return held;
}

/** Whether a mention would be attached: inside the project (and the roots), not protected, and there. */
export function attachable(mention: Mention, rules: AttachRules): boolean {
  return typeof allowed(mention, rules, real(rules.root) ?? resolve(rules.root)) === "string";
}

function allowed(mention: Mention, rules: AttachRules, root: string): string | { why: string } {
  const wanted = resolve(rules.cwd, mention.path);
  if (isProtected(wanted, root, rules.protectedPaths)) return { why: "a protected path" };
  const target = real(wanted);
  if (!target) return { why: "no such file" };
  if (!isInside(target, root)) return { why: "outside the project" };
  if (rules.roots && !rules.roots.some((r) => isInside(target, real(r) ?? r))) return { why: "outside the remote roots" };
  if (isProtected(target, root, rules.protectedPaths)) return { why: "a protected path" };
  return target;
}

function real(path: string): string | null {
  try {
    return existsSync(path) ? realpathSync(path) : null;
  } catch {
    return null;
  }
}

/** Whether a file is binary: a NUL byte in its first 8 KiB. */
function binary(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(8192);
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).includes(0);
  } finally {
    closeSync(fd);
  }
}

/**
 * A file (or its line range) line-numbered, within `budget` characters and MAX_LINES, streamed so
 * that only the lines shown are ever held. A cut says where, and why when it was the prompt's limit.
 */
function fileBlock(path: string, shown: string, range: Mention["range"], size: number, budget: number, marks: LineMarks, held?: string): string {
  if (held === undefined && binary(path)) return `<file path="${shown}">(binary file, ${size} bytes)</file>`;
  const first = range ? Math.max(1, range.start) : 1;
  const wanted = range ? Math.max(range.end, range.start) : Number.POSITIVE_INFINITY;
  const out: string[] = [];
  let used = 0;
  // A line is at most three UTF-8 bytes a character: one held to 3 × budget + 4 bytes and still
  // under budget was whole.
  const scan = { first, last: wanted, maxScan: MAX_RANGE_READ, maxLineBytes: 3 * budget + 4 };
  const take = (n: number, text: string): boolean => {
    const line = `${String(n).padStart(6)}\t${text}`;
    if (out.length >= MAX_LINES || used + line.length > budget) return false;
    out.push(line);
    used += line.length + 1;
    return true;
  };
  const end = held === undefined ? scanLines(path, scan, marks, take) : scanText(held, scan, take);
  const last = end.why === "eof" ? Math.min(end.lines, wanted) : wanted;
  let note = "";
  if (end.why === "full") {
    const of = Number.isFinite(last) ? ` of ${last}` : "";
    const why = budget < MAX_BYTES && out.length < MAX_LINES ? ` (this prompt's attachments reached their limit of ${MAX_ATTACHED} characters)` : "";
    note = `\n[… cut at line ${end.line - 1}${of}${why}: read the file for the rest]`;
  } else if (end.why === "scan") {
    note = `\n[… lines past ${end.line} lie beyond the first ${MAX_RANGE_READ / 1024 / 1024} MiB of the file: read the file for them]`;
  } else if (range && end.why === "eof" && end.lines < first) {
    note = `\n[the file has ${end.lines} lines]`;
  }
  const lineAttr = range ? ` lines="${first}-${last >= first ? last : wanted}"` : "";
  return `<file path="${shown}"${lineAttr}>\n${out.join("\n")}${note}\n</file>`;
}

/** scanLines over a text in memory (a file as an editor holds it), with the same ends. */
function scanText(text: string, scan: Scan, take: (line: number, text: string) => boolean): ScanEnd {
  let line = 1;
  for (let at = 0; at < text.length; line++) {
    const newline = text.indexOf("\n", at);
    const end = newline === -1 ? text.length : newline;
    if (line >= scan.first) {
      if (!take(line, text.slice(at, Math.min(end, at + scan.maxLineBytes)))) return { why: "full", line };
      if (line >= scan.last) return { why: "done" };
    }
    if (newline === -1) return { why: "eof", lines: line };
    at = newline + 1;
  }
  return { why: "eof", lines: line - 1 };
}

/** A directory's entries, `.git` and secrets (by name too) left out. */
function listing(path: string, shown: string, secret: (path: string) => boolean): string {
  const entries = readdirSync(path, { withFileTypes: true })
    .filter((e) => e.name !== ".git" && !secret(join(path, e.name)))
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort((a, b) => Number(b.endsWith("/")) - Number(a.endsWith("/")) || a.localeCompare(b));
  const shownEntries = entries.slice(0, MAX_ENTRIES);
  const more = entries.length > MAX_ENTRIES ? `\n[… ${entries.length - MAX_ENTRIES} more]` : "";
  return `<directory path="${shown === "." ? "./" : `${shown}/`}">\n${shownEntries.join("\n")}${more}\n</directory>`;
}

/** The path a mention names, relative to cwd, as the picker writes it: spaces and # escaped. */
export function mentionFor(path: string): string {
  return `@${path.replace(/([ #\\])/g, "\\$1")}`;
}

