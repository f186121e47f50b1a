import { type FileHandle, open, stat } from "node:fs/promises";
import { errorCode } from "../errors.ts";

/** The largest file the library takes; a larger one is refused unread (its memory stays bounded). */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

export type DocumentText = { kind: "text"; text: string; hash: string; size: number; mtime: number };
/** Why a file is not taken: not text (a binary, a PDF), too large, or not readable; `why` is the sentence. */
export type DocumentRefusal = { kind: "not-text" | "too-large" | "unreadable"; why: string };

/**
 * A document's text, read whole only when it is at most MAX_DOCUMENT_BYTES and is UTF-8 text
 * (no NUL byte, valid UTF-8); else why not, as a sentence naming `shown`.
 */
export async function readDocument(abs: string, shown: string): Promise<DocumentText | DocumentRefusal> {
  let info;
  try {
    info = await stat(abs);
  } catch (error) {
    return { kind: "unreadable", why: unreadable(error, shown) };
  }
  if (!info.isFile()) return { kind: "unreadable", why: `${shown} is not a regular file` };
  if (info.size > MAX_DOCUMENT_BYTES) {
    return { kind: "too-large", why: `${shown} is ${mib(info.size)}, over the library's ${mib(MAX_DOCUMENT_BYTES)} a file: split it, or add the parts that matter` };
  }
  let bytes: Uint8Array;
  try {
    const handle = await open(abs, "r");
    try {
      // At most one byte past the cap: a file that grew since its stat is not read without bound.
      bytes = await readUpTo(handle, info.size, MAX_DOCUMENT_BYTES + 1);
    } finally {
      await handle.close();
    }
  } catch (error) {
    return { kind: "unreadable", why: unreadable(error, shown) };
  }
  if (bytes.length > MAX_DOCUMENT_BYTES) return { kind: "too-large", why: `${shown} grew past the library's ${mib(MAX_DOCUMENT_BYTES)} a file while it was read: skipped` };
  if (bytes.subarray(0, 8192).includes(0)) return { kind: "not-text", why: `${shown} is not text (a binary file): skipped` };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { kind: "not-text", why: `${shown} is not UTF-8 text: skipped` };
  }
  const hash = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  return { kind: "text", text, hash, size: info.size, mtime: Math.floor(info.mtimeMs) };
}

/** The file's bytes, at most `most`: a buffer of the stat's size (and room to see that it grew), grown as needed. */
async function readUpTo(handle: FileHandle, size: number, most: number): Promise<Uint8Array> {
  let buffer = new Uint8Array(Math.min(most, size + 1));
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length >= most) return buffer;
      const grown = new Uint8Array(Math.min(most, buffer.length * 2));
      grown.set(buffer);
      buffer = grown;
    }
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) return buffer.subarray(0, length);
    length += bytesRead;
  }
}

function unreadable(error: unknown, shown: string): string {
  const code = errorCode(error);
  if (code === "ENOENT") return `${shown} does not exist`;
  if (code === "EACCES" || code === "EPERM") return `${shown} cannot be read: permission denied`;
  if (code === "EISDIR") return `${shown} is a directory`;
  return `${shown} cannot be read (${code ?? String(error)})`;
}

function mib(bytes: number): string {
  const mb = bytes / 1024 / 1024;
  return `${mb < 1 ? mb.toFixed(1) : Math.round(mb)} MB`;
}
