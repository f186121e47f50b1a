import { existsSync, statSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import { isInside } from "../paths.ts";
import { type AttachRules, attachable, type Mention, mentionFor } from "../project/attach.ts";
import { isProtected } from "../project/protected.ts";
import { realOr, realPath } from "../real-path.ts";
import { MAX_RESULT_CHARS } from "../result-bound.ts";
import type { Block } from "./blocks.ts";
import { sameBytes, sameText } from "./disk-text.ts";

/**
 * A line selection in a file:// URI's fragment, 1-based and inclusive: Zed writes `#L10:20`,
 * others `#L10-20`, `#L10-L20` or `#L10`.
 */
const SELECTION = /^L(\d+)(?:[:-]L?(\d+))?$/;
/** The most lines of the editor's text attached, as of an @file (project/attach.ts). */
const MAX_LINES = 2000;

/** The file an embedded resource's file:// URI names, as a mention (its selection its range); null for any other URI. */
export function fileMention(uri: string): Mention | null {
  if (!/^file:\/\//i.test(uri)) return null;
  const [base = "", fragment = ""] = uri.split("#", 2);
  let path: string;
  try {
    // Bun's own: node:url would be loaded before every one-shot's first model request.
    path = Bun.fileURLToPath(base);
  } catch {
    return null;
  }
  const selection = SELECTION.exec(fragment);
  const start = Number(selection?.[1] ?? 0);
  const end = Number(selection?.[2] ?? start);
  const range = start >= 1 ? { start, end: Math.max(start, end) } : null;
  return { raw: uri, path, range, dir: false };
}

/**
 * What the blocks naming files of the project (not protected, inside its bounds) come to.
 * `saved`: those whose text is the file's on disk (or that carry none: a resource_link), as
 * mentions: attached as those files, by their path and selection, never copied. `unsaved`: those
 * whose text the editor has not saved (or a file not on disk yet), as the text to attach: what the
 * person sees, under the file's real path, said to differ from the disk. `inPlace`: each of them as
 * the @path that stands where the editor put it, relative to the session's root. A resource from
 * outside the project is in none, left to be copied into the attachment directory.
 */
export type ProjectResources = { saved: Map<Block, Mention>; unsaved: Map<Block, string>; inPlace: Map<Block, string> };

/** What an embedded resource sent: no contents (a link), text, or bytes that are not text. */
type Sent = { text: string } | { bytes: Uint8Array } | null;

/** The project files the blocks name; resource_links too when `links` (an editor's mentions, read in place). */
export function projectFiles(blocks: readonly Block[], rules: AttachRules, links: boolean): ProjectResources {
  const found: ProjectResources = { saved: new Map(), unsaved: new Map(), inPlace: new Map() };
  const root = realOr(rules.root);
  for (const block of blocks) {
    const uri = block.type === "resource" ? block.resource.uri : block.type === "resource_link" && links ? block.uri : null;
    const mention = uri === null ? null : fileMention(uri);
    if (!mention) continue;
    const sent = block.type === "resource" ? sentOf(block.resource) : null;
    if (attachable(mention, rules)) {
      const path = realOr(resolve(rules.cwd, mention.path));
      const shown = relative(root, path).split(sep).join("/") || ".";
      if (sent && "bytes" in sent && !sameBytes(path, sent.bytes)) continue;
      const written = inPlace(shown, mention.range, isDirectory(path));
      found.inPlace.set(block, written);
      if (!sent || "bytes" in sent || sameText(path, sent.text, mention.range)) found.saved.set(block, { ...mention, raw: written });
      else found.unsaved.set(block, unsavedBlock(shown, sent.text, mention.range, "changed"));
      continue;
    }
    const path = sent && "text" in sent ? newFile(mention, rules, root) : null;
    if (path === null || !sent || !("text" in sent)) continue;
    const shown = relative(root, path).split(sep).join("/");
    found.inPlace.set(block, inPlace(shown, mention.range, false));
    found.unsaved.set(block, unsavedBlock(shown, sent.text, mention.range, "new"));
  }
  return found;
}

/** A resource's contents: its text, or its bytes decoded (validated before) as text where they are UTF-8 and not an image. */
function sentOf(resource: Extract<Block, { type: "resource" }>["resource"]): Sent {
  if ("text" in resource) return { text: resource.text };
  const bytes = Buffer.from(resource.blob, "base64");
  if (resource.mimeType?.startsWith("image/") || bytes.includes(0)) return { bytes };
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    return { bytes };
  }
}

/**
 * Where a file that is not on disk yet would be, when that is inside the project (and the roots,
 * where they apply) and not protected, symlinks followed as a write would follow them; else null.
 */
function newFile(mention: Mention, rules: AttachRules, root: string): string | null {
  const wanted = resolve(rules.cwd, mention.path);
  if (existsSync(wanted)) return null;
  const target = realPath(wanted);
  if (!isInside(target, root) || target === root) return null;
  if (rules.roots && !rules.roots.some((r) => isInside(target, realOr(r)))) return null;
  if (isProtected(wanted, root, rules.protectedPaths) || isProtected(target, root, rules.protectedPaths)) return null;
  return target;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The @path standing for a file where the editor mentioned it, in the @-syntax the expander reads (spaces and # escaped, #10-20 a range). */
function inPlace(shown: string, range: Mention["range"], dir: boolean): string {
  const lines = range ? (range.end > range.start ? `#${range.start}-${range.end}` : `#${range.start}`) : "";
  return `${mentionFor(shown)}${dir ? "/" : ""}${lines}`;
}

/**
 * The editor's text line-numbered as an @file is (from its selection's first line), within an
 * @file's limits (MAX_LINES, MAX_RESULT_CHARS) with a note where it is cut, marked as not saved.
 */
function unsavedBlock(shown: string, text: string, range: Mention["range"], why: "changed" | "new"): string {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  const first = range?.start ?? 1;
  const last = first + lines.length - 1;
  const kept: string[] = [];
  let used = 0;
  for (const [i, line] of lines.entries()) {
    const numbered = `${String(first + i).padStart(6)}\t${line}`;
    if (kept.length >= MAX_LINES || used + numbered.length > MAX_RESULT_CHARS) break;
    kept.push(numbered);
    used += numbered.length + 1;
  }
  const cut = kept.length < lines.length ? `\n[… cut at line ${first + kept.length - 1} of ${last}: read the file for the rest]` : "";
  const body = kept.join("\n") + cut;
  const span = range ? ` lines="${first}-${last}"` : "";
  const note =
    why === "new"
      ? `(${shown} is not saved yet: this is the editor's text, and there is no such file on disk)`
      : `(${shown} has changes in the editor that are not saved: this is the editor's text, and the file on disk differs; read the file before changing it)`;
  return `<file path="${shown}"${span} unsaved="true">\n${body}\n</file>\n${note}`;
}
