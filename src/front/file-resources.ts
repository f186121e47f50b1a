import { readFileSync, statSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { type AttachRules, attachable, type Mention } from "../project/attach.ts";
import { realOr } from "../real-path.ts";
import type { Block } from "./blocks.ts";

/**
 * A line selection in a file:// URI's fragment, 1-based and inclusive: Zed writes `#L10:20`,
 * others `#L10-20`, `#L10-L20` or `#L10`.
 */
const SELECTION = /^L(\d+)(?:[:-]L?(\d+))?$/;
/** The largest file compared with the text an editor sent; a larger one is attached as it is on disk. */
const MAX_COMPARED_BYTES = 16 * 1024 * 1024;

/** The file an embedded resource's file:// URI names, as a mention (its selection its range); null for any other URI. */
export function fileMention(uri: string): Mention | null {
  if (!/^file:\/\//i.test(uri)) return null;
  const [base = "", fragment = ""] = uri.split("#", 2);
  let path: string;
  try {
    path = fileURLToPath(base);
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
 * What the embedded resources naming files of the project (not protected, and there) come to.
 * `saved`: those whose text is the file's on disk, as mentions: attached as those files, by their
 * path and selection, never copied. `unsaved`: those whose text the editor has not saved, as the
 * text to attach: what the person sees, under the file's path, said to differ from the disk. A
 * resource from outside the project is in neither, left to be copied into the attachment directory.
 */
export type ProjectResources = { saved: Map<Block, Mention>; unsaved: Map<Block, string> };

export function projectFiles(blocks: readonly Block[], rules: AttachRules): ProjectResources {
  const found: ProjectResources = { saved: new Map(), unsaved: new Map() };
  for (const block of blocks) {
    if (block.type !== "resource") continue;
    const mention = fileMention(block.resource.uri);
    if (!mention || !attachable(mention, rules)) continue;
    const sent = "text" in block.resource ? block.resource.text : null;
    const path = realOr(resolve(rules.cwd, mention.path));
    if (sent === null || sameAsDisk(path, sent, mention.range)) {
      found.saved.set(block, mention);
      continue;
    }
    const shown = relative(realOr(rules.root), path).split(sep).join("/");
    found.unsaved.set(block, unsavedBlock(shown, sent, mention.range));
  }
  return found;
}

/**
 * Whether the editor's text is the file's on disk (its selection: those lines, or part of them),
 * line endings aside and a last newline either way. A file too large to compare counts as the same.
 */
function sameAsDisk(path: string, sent: string, range: Mention["range"]): boolean {
  let disk: string;
  try {
    const info = statSync(path);
    // A directory is listed, as an @dir/ is.
    if (!info.isFile() || info.size > MAX_COMPARED_BYTES) return true;
    disk = comparable(readFileSync(path, "utf8"));
  } catch {
    // Not readable now: attached from the disk, which says why.
    return true;
  }
  const text = comparable(sent);
  if (!range) return disk === text;
  const lines = disk.split("\n").slice(range.start - 1, range.end).join("\n");
  return lines.includes(text);
}

function comparable(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(/\n$/, "");
}

/** The editor's text line-numbered as an @file is (from its selection's first line), marked as not saved. */
function unsavedBlock(shown: string, text: string, range: Mention["range"]): string {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  const first = range?.start ?? 1;
  const body = lines.map((line, i) => `${String(first + i).padStart(6)}\t${line}`).join("\n");
  const span = range ? ` lines="${first}-${first + lines.length - 1}"` : "";
  const note = `(${shown} has changes in the editor that are not saved: this is the editor's text, and the file on disk differs; read the file before changing it)`;
  return `<file path="${shown}"${span} unsaved="true">\n${body}\n</file>\n${note}`;
}
