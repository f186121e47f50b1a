import { fileURLToPath } from "node:url";
import { type AttachRules, attachable, type Mention } from "../project/attach.ts";
import type { Block } from "./blocks.ts";

/**
 * A line selection in a file:// URI's fragment, 1-based and inclusive: Zed writes `#L10:20`,
 * others `#L10-20`, `#L10-L20` or `#L10`.
 */
const SELECTION = /^L(\d+)(?:[:-]L?(\d+))?$/;

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
 * The embedded resources that are files of the project (not protected, and there), as mentions:
 * they are attached as those files, by their path and selection, and never copied. A resource
 * from outside the project is left to be copied into the attachment directory.
 */
export function projectFiles(blocks: readonly Block[], rules: AttachRules): Map<Block, Mention> {
  const files = new Map<Block, Mention>();
  for (const block of blocks) {
    if (block.type !== "resource") continue;
    const mention = fileMention(block.resource.uri);
    if (mention && attachable(mention, rules)) files.set(block, mention);
  }
  return files;
}
