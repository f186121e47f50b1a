import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, isAbsolute, resolve } from "node:path";
import { MAX_BLOCK_BYTES } from "../front/blocks.ts";
import { imageTypeOf } from "../images.ts";
import type { PastedImage } from "./runtime.ts";

/** An image taken in, or why it was not (one line to show). */
export type ImageTake = { ok: true; image: PastedImage; bytes: number } | { ok: false; message: string };

/** One path of a paste: '…', "…", or unquoted with backslash escapes. */
const PATH_TOKEN = /'([^']*)'|"([^"]*)"|((?:\\.|[^\s\\'"])+)/g;

/** The longest paste read as dragged files: a few hundred paths. */
const MAX_DRAG_CHARS = 64 * 1024;

/**
 * The image files a pasted text names, as terminals paste dragged files: paths separated by
 * spaces, each possibly quoted ('…' or "…"), with backslash-escaped spaces, or a file:// URL; `~`
 * is the home directory and a relative path is read from `cwd`. Null unless every path is an
 * existing .png/.jpg/.jpeg/.webp/.gif file (then the paste is text, and pasted as such).
 */
export function draggedImagePaths(pasted: string, cwd: string): string[] | null {
  // Longer than any drag of files: not looked through (a 10 MB log took 0.7 s of the path pattern).
  if (pasted.length > MAX_DRAG_CHARS) return null;
  const text = pasted.trim();
  // More than one line (a terminal pastes a line break as CR): text, not a drag.
  if (!text || /[\r\n]/.test(text)) return null;
  // Anything but paths and the spaces between them (a stray quote): not a drag.
  if (text.replace(PATH_TOKEN, "").trim() !== "") return null;
  const paths: string[] = [];
  for (const match of text.matchAll(PATH_TOKEN)) {
    const raw = match[1] ?? match[2] ?? (match[3] ?? "").replace(/\\(.)/g, "$1");
    const path = imagePath(raw, cwd);
    if (!path) return null;
    paths.push(path);
  }
  return paths.length > 0 ? paths : null;
}

function imagePath(raw: string, cwd: string): string | null {
  let text = raw;
  if (text.startsWith("file://")) {
    try {
      text = decodeURIComponent(new URL(text).pathname);
    } catch {
      return null;
    }
  }
  if (text === "~" || text.startsWith("~/")) text = homedir() + text.slice(1);
  if (!imageTypeOf(text)) return null;
  const path = isAbsolute(text) ? text : resolve(cwd, text);
  try {
    return statSync(path).isFile() ? path : null;
  } catch {
    return null;
  }
}

/** Reads an image file for the next prompt; one too large for a block (10 MiB) is refused. */
export function imageFromFile(path: string): ImageTake {
  const name = basename(path);
  const mimeType = imageTypeOf(path);
  if (!mimeType) return { ok: false, message: `${name} is not a png, jpeg, webp or gif image` };
  let size: number;
  try {
    size = statSync(path).size;
  } catch (error) {
    return { ok: false, message: `${name} could not be read: ${(error as NodeJS.ErrnoException).code ?? "unreadable"}` };
  }
  const tooLarge = overLimit(name, size);
  if (tooLarge) return tooLarge;
  try {
    return imageFromBytes(readFileSync(path), mimeType, name);
  } catch (error) {
    return { ok: false, message: `${name} could not be read: ${(error as NodeJS.ErrnoException).code ?? "unreadable"}` };
  }
}

/** Bytes (a file's, the clipboard's) as the next prompt's image, within the block limit. */
export function imageFromBytes(bytes: Uint8Array, mimeType: string, name: string): ImageTake {
  const tooLarge = overLimit(name, bytes.length);
  if (tooLarge) return tooLarge;
  return { ok: true, image: { data: Buffer.from(bytes).toString("base64"), mimeType, name }, bytes: bytes.length };
}

function overLimit(name: string, bytes: number): ImageTake | null {
  if (bytes <= MAX_BLOCK_BYTES) return null;
  return { ok: false, message: `the image ${name} is ${mebibytes(bytes)} (${bytes} bytes); an image may be at most 10 MiB (${MAX_BLOCK_BYTES} bytes), so it was not attached` };
}

/** A size as people read it: bytes, KB or MiB. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return mebibytes(bytes);
}

function mebibytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
