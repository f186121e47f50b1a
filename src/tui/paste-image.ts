import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, extname, isAbsolute, resolve } from "node:path";
import { MAX_BLOCK_BYTES } from "../front/blocks.ts";
import type { PastedImage } from "./runtime.ts";

/** The image files a dragged path may name, by extension, with the type the prompt's block carries. */
const IMAGE_TYPES: Record<string, string> = { ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp", ".gif": "image/gif" };

/** An image taken in, or why it was not (one line to show). */
export type ImageTake = { ok: true; image: PastedImage; bytes: number } | { ok: false; message: string };

/**
 * The image file a pasted text names, as terminals paste a dragged file: one path, possibly
 * quoted ('…' or "…"), with backslash-escaped spaces, or a file:// URL; `~` is the home directory
 * and a relative path is read from `cwd`. Null when the text is not the path of an existing
 * .png/.jpg/.jpeg/.webp/.gif file (then it is pasted as text).
 */
export function draggedImagePath(pasted: string, cwd: string): string | null {
  let text = pasted.trim();
  if (!text || text.includes("\n")) return null;
  const quoted = /^(['"])(.*)\1$/.exec(text);
  if (quoted) text = quoted[2] ?? "";
  else text = text.replace(/\\(.)/g, "$1");
  if (text.startsWith("file://")) {
    try {
      text = decodeURIComponent(new URL(text).pathname);
    } catch {
      return null;
    }
  }
  if (text === "~" || text.startsWith("~/")) text = homedir() + text.slice(1);
  if (!IMAGE_TYPES[extname(text).toLowerCase()]) return null;
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
  const mimeType = IMAGE_TYPES[extname(path).toLowerCase()];
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
  return { ok: false, message: `the image ${name} is ${mebibytes(bytes)}; an image may be at most 10 MiB, so it was not attached` };
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
