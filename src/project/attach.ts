import { closeSync, existsSync, openSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { extname, join, relative, resolve, sep } from "node:path";
import { isProtected, type ProtectedPaths, protection } from "./protected.ts";
import { isInside } from "../paths.ts";

/** The most of one file an @mention attaches; a larger one is cut with a note. */
const MAX_LINES = 2000;
const MAX_BYTES = 256 * 1024;
const MAX_ENTRIES = 200;
/** The most read from disk for a line range, and the largest image attached. */
const MAX_RANGE_READ = 64 * 1024 * 1024;
const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
const IMAGE_TYPES: Record<string, string> = { ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp", ".gif": "image/gif" };

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
 * and there. Anything else stays plain text and is never read.
 */
export function expandMentions(text: string, rules: AttachRules): Attached {
  const blocks: string[] = [];
  const images: Attached["images"] = [];
  const read: string[] = [];
  const skipped: Attached["skipped"] = [];
  const seen = new Set<string>();
  const root = real(rules.root) ?? resolve(rules.root);
  for (const mention of findMentions(text)) {
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
    if (stat.isDirectory()) {
      blocks.push(listing(target, shown, (path) => protection(path, root, rules.protectedPaths) === "secret"));
      continue;
    }
    if (!stat.isFile()) {
      skipped.push({ mention: mention.raw, why: "not a regular file" });
      continue;
    }
    const mimeType = IMAGE_TYPES[extname(target).toLowerCase()];
    if (mimeType && stat.size > MAX_IMAGE_BYTES) {
      blocks.push(`(${shown} is an image of ${stat.size} bytes: too large to attach)`);
      continue;
    }
    if (mimeType) {
      images.push({ name: shown, mimeType, size: stat.size, path: target });
      blocks.push(`(image attached: ${shown}, ${stat.size} bytes)`);
      continue;
    }
    blocks.push(fileBlock(target, shown, mention.range, stat.size));
    read.push(target);
  }
  return { text: blocks.length > 0 ? `${text}\n\n${blocks.join("\n\n")}` : text, images, read, skipped };
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

/** The first `max` bytes of a file, without reading the rest (a huge dump stays on disk). */
function head(path: string, max: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(max);
    const read = readSync(fd, buffer, 0, max, 0);
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

function fileBlock(path: string, shown: string, range: Mention["range"], size: number): string {
  // A range may reach past the first MAX_BYTES: read more for it, within a hard bound.
  const bytes = head(path, Math.min(size, range ? MAX_RANGE_READ : MAX_BYTES + 1));
  if (bytes.subarray(0, 8192).includes(0)) return `<file path="${shown}">(binary file, ${size} bytes)</file>`;
  const lines = bytes.toString("utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  const first = range ? Math.max(1, range.start) : 1;
  const last = range ? Math.min(lines.length, Math.max(range.end, range.start)) : lines.length;
  const out: string[] = [];
  let used = 0;
  let cut = "";
  for (let n = first; n <= last; n++) {
    const line = `${String(n).padStart(6)}\t${lines[n - 1] ?? ""}`;
    if (out.length >= MAX_LINES || used + line.length > MAX_BYTES) {
      cut = `\n[… cut at line ${n - 1} of ${last}: read the file for the rest]`;
      break;
    }
    out.push(line);
    used += line.length + 1;
  }
  const lineAttr = range ? ` lines="${first}-${last}"` : "";
  return `<file path="${shown}"${lineAttr}>\n${out.join("\n")}${cut}\n</file>`;
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

