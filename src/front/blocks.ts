import { mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import type { Attachment } from "../engine/session.ts";
import { errorCode, errorMessage, UserError } from "../errors.ts";
import { IMAGE_TYPES, isImageType } from "../images.ts";
import { writeNewFileSync } from "../tools/atomic.ts";

/**
 * Decoded bytes a single block may carry, of any kind, and a whole prompt. The spec's "10 MB" and
 * "25 MB" are read as MiB: an upload of exactly 10 MiB is one block's worth.
 */
export const MAX_BLOCK_BYTES = 10 * 1024 * 1024;
const MAX_PROMPT_BYTES = 25 * 1024 * 1024;

/** A prompt's content blocks, as far as lembas reads them (the SDK has validated their shape). */
export type Block =
  | { type: "text"; text: string }
  | { type: "resource_link"; uri: string; name?: string; mimeType?: string | null; size?: number | null; title?: string | null }
  | { type: "image"; data: string; mimeType: string; uri?: string | null }
  | { type: "resource"; resource: { uri: string; mimeType?: string | null; text: string } | { uri: string; mimeType?: string | null; blob: string } }
  | { type: "audio"; data: string; mimeType: string };

export class BlockError extends Error {
  override name = "BlockError";
}

/** An upload that could not be written (a full disk, say): the device's failure, not the request's, said as a sentence. */
export class UploadError extends UserError {
  override name = "UploadError";
}

/**
 * What a prompt's uploads come to: what they add to the text the person typed (prompt-text.ts),
 * the files written for them, and those the model was shown whole (text resources: they count as
 * read, like an @file).
 */
export type ReadBlocks = { added: string; attachments: Attachment[]; read: string[]; saved: Map<Block, Attachment> };

/**
 * Whether the blocks may be read at all: not empty, and within the limits, checked on decoded sizes
 * before anything is decoded, compared or written. Throws a BlockError saying what is wrong.
 */
export function checkBlocks(blocks: readonly Block[]): void {
  if (blocks.every((b) => b.type === "text" && !b.text.trim())) throw new BlockError("the prompt is empty: send some text, an image or a file");
  checkSizes(blocks);
}

/**
 * Turns the uploads of checked blocks into attachments: images and embedded resources written
 * under the session's attachment directory with a name of their own, then attached (an image by
 * path, a text resource line-numbered like an @file, a binary one referenced by path). The blocks
 * in `attached` are left out: the caller attaches them as the project files they are.
 */
export function readBlocks(blocks: readonly Block[], attachmentsDir: string, attached: ReadonlySet<Block> = new Set()): ReadBlocks {
  const decoded = blocks.map(decode);
  const parts: string[] = [];
  const attachments: Attachment[] = [];
  const read: string[] = [];
  const saved = new Map<Block, Attachment>();
  for (const [i, block] of blocks.entries()) {
    if (block.type === "text" || block.type === "resource_link" || attached.has(block)) continue;
    const file = decoded[i];
    if (!file) continue;
    const path = save(attachmentsDir, file.name, file.bytes);
    const attachment: Attachment = { name: file.name, mimeType: file.mimeType, size: file.bytes.length, path };
    attachments.push(attachment);
    saved.set(block, attachment);
    if (file.mimeType.startsWith("image/")) {
      parts.push(`(image attached: ${file.name}, at ${path})`);
    } else if (file.text !== null) {
      parts.push(numbered(file.name, path, file.text));
      read.push(path);
    } else {
      parts.push(`(binary file, ${file.bytes.length} bytes: ${file.name}, at ${path})`);
    }
  }
  return { added: parts.join("\n\n"), attachments, read, saved };
}

type Decoded = { name: string; mimeType: string; bytes: Uint8Array; text: string | null };

function decode(block: Block): Decoded | null {
  if (block.type === "text" || block.type === "resource_link") return null;
  if (block.type === "audio") throw new BlockError("audio blocks are not supported (promptCapabilities.audio is false)");
  if (block.type === "image") {
    if (!isImageType(block.mimeType)) {
      throw new BlockError(`an image must be one of ${IMAGE_TYPES.join(", ")}, not ${block.mimeType}`);
    }
    const bytes = base64(block.data, "image");
    return { name: nameFrom(block.uri ?? null, `image.${block.mimeType.split("/")[1]}`), mimeType: block.mimeType, bytes, text: null };
  }
  const { resource } = block;
  const name = attachmentName(resource.uri);
  if ("text" in resource) {
    const bytes = Buffer.from(resource.text, "utf8");
    return { name, mimeType: resource.mimeType ?? "text/plain", bytes, text: resource.text };
  }
  const bytes = base64(resource.blob, name);
  const mimeType = resource.mimeType ?? "application/octet-stream";
  if (mimeType.startsWith("image/") && !isImageType(mimeType)) {
    return { name, mimeType: "application/octet-stream", bytes, text: null };
  }
  return { name, mimeType, bytes, text: null };
}

/**
 * Every block within MAX_BLOCK_BYTES and all of them within MAX_PROMPT_BYTES, decoded, measured
 * before anything is decoded or written.
 */
function checkSizes(blocks: readonly Block[]): void {
  let total = 0;
  for (const [i, block] of blocks.entries()) {
    const bytes = decodedSize(block);
    if (bytes > MAX_BLOCK_BYTES) {
      throw new BlockError(`block ${i + 1} (${block.type}) is ${bytes} bytes decoded; the limit is 10 MiB (${MAX_BLOCK_BYTES} bytes) a block`);
    }
    total += bytes;
  }
  if (total > MAX_PROMPT_BYTES) {
    throw new BlockError(`the prompt's blocks are ${total} bytes decoded; the limit is 25 MiB (${MAX_PROMPT_BYTES} bytes) a prompt`);
  }
}

function decodedSize(block: Block): number {
  if (block.type === "text") return Buffer.byteLength(block.text, "utf8");
  if (block.type === "resource_link") return Buffer.byteLength(block.uri, "utf8");
  // Audio is refused whatever its size, when it is decoded.
  if (block.type === "audio") return 0;
  if (block.type === "image") return base64Size(block.data, "image");
  const { resource } = block;
  if ("text" in resource) return Buffer.byteLength(resource.text, "utf8");
  return base64Size(resource.blob, nameFrom(resource.uri, "attachment"));
}

/** The exact number of bytes base64 text decodes to: three a quartet, less its padding. */
function base64Size(data: string, what: string): number {
  const clean = cleanBase64(data, what);
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  const rest = clean.length % 4;
  return Math.floor(clean.length / 4) * 3 - padding + (rest === 0 ? 0 : rest - 1);
}

function cleanBase64(data: string, what: string): string {
  const clean = data.replace(/\s+/g, "");
  if (clean.length % 4 === 1 || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean)) throw new BlockError(`the data of ${what} is not valid base64`);
  if (clean.includes("=") && clean.length % 4 !== 0) throw new BlockError(`the data of ${what} is not valid base64`);
  return clean;
}

function base64(data: string, what: string): Uint8Array {
  return Buffer.from(cleanBase64(data, what), "base64");
}

/** The name an embedded resource's upload is attached under. */
export function attachmentName(uri: string): string {
  return nameFrom(uri, "attachment");
}

function nameFrom(uri: string | null, fallback: string): string {
  if (!uri) return fallback;
  const path = uri.replace(/^[a-z]+:\/\//i, "").split(/[?#]/)[0] ?? "";
  const name = basename(decodeURIComponentSafe(path));
  return name.replace(/[^\w.@+-]+/g, "_").slice(0, 120) || fallback;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Writes an upload under a name of its own (<time>-<random>-<name>), so two of one name stay two,
 * whole or not at all: one that fails leaves no half-written file, and throws an UploadError.
 */
function save(dir: string, name: string, bytes: Uint8Array): string {
  const random = Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex");
  const path = join(dir, `${Date.now()}-${random}-${name}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeNewFileSync(path, bytes, 0o600);
  } catch (error) {
    throw new UploadError(uploadFailure(error, dir, name, bytes.length));
  }
  return path;
}

function uploadFailure(error: unknown, dir: string, name: string, size: number): string {
  const what = `the upload ${name} (${size} bytes) could not be saved in ${dir}`;
  const code = errorCode(error);
  if (code === "ENOSPC" || code === "EDQUOT") return `${what}: the disk is full; free some space and send it again`;
  if (code === "EROFS") return `${what}: the disk is read-only; make it writable, or set LEMBAS_STATE_DIR to a directory that is`;
  if (code === "EACCES" || code === "EPERM") return `${what}: this user may not write there; make it writable, or set LEMBAS_STATE_DIR to a directory that is`;
  return `${what}: ${errorMessage(error)}`;
}

/** A text attachment as the model sees an @file: line-numbered. */
function numbered(name: string, path: string, text: string): string {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const width = String(lines.length).length;
  const body = lines.map((line, i) => `${String(i + 1).padStart(width)}\t${line}`).join("\n");
  return `<file name="${name}" path="${path}">\n${body}\n</file>`;
}
