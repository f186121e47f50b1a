import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { Attachment } from "../engine/session.ts";

/** Decoded bytes a single block may carry, and a whole prompt. */
export const MAX_BLOCK_BYTES = 10 * 1024 * 1024;
export const MAX_PROMPT_BYTES = 25 * 1024 * 1024;
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"] as const;

/** A prompt's content blocks, as far as lembas reads them (the SDK has validated their shape). */
export type Block =
  | { type: "text"; text: string }
  | { type: "resource_link"; uri: string; name?: string }
  | { type: "image"; data: string; mimeType: string; uri?: string | null }
  | { type: "resource"; resource: { uri: string; mimeType?: string | null; text: string } | { uri: string; mimeType?: string | null; blob: string } }
  | { type: "audio"; data: string; mimeType: string };

export class BlockError extends Error {
  override name = "BlockError";
}

/**
 * What a prompt's blocks become: what the person typed (text blocks and resource links, where
 * @mentions and /commands are read), what the uploads add to it, the files written for them, and
 * those the model was shown whole (text resources: they count as read, like an @file).
 */
export type ReadBlocks = { typed: string; added: string; attachments: Attachment[]; read: string[] };

/**
 * Turns blocks into a prompt: text blocks joined by a blank line; a resource link as "(see uri)";
 * images and embedded resources written under the session's attachment directory with a name of
 * their own, then attached (an image by path, a text resource line-numbered like an @file, a
 * binary one referenced by path). Limits are checked on decoded sizes before anything is written.
 */
export function readBlocks(blocks: readonly Block[], attachmentsDir: string): ReadBlocks {
  const decoded = blocks.map(decode);
  const total = decoded.reduce((sum, d) => sum + (d?.bytes.length ?? 0), 0);
  if (total > MAX_PROMPT_BYTES) {
    throw new BlockError(`the prompt's attachments are ${mb(total)} decoded; the limit is 25 MB a prompt`);
  }
  const typed: string[] = [];
  const parts: string[] = [];
  const attachments: Attachment[] = [];
  const read: string[] = [];
  for (const [i, block] of blocks.entries()) {
    if (block.type === "text") {
      typed.push(block.text);
      continue;
    }
    if (block.type === "resource_link") {
      typed.push(`(see ${block.uri})`);
      continue;
    }
    const file = decoded[i];
    if (!file) continue;
    const path = save(attachmentsDir, file.name, file.bytes);
    const attachment: Attachment = { name: file.name, mimeType: file.mimeType, size: file.bytes.length, path };
    attachments.push(attachment);
    if (file.mimeType.startsWith("image/")) {
      parts.push(`(image attached: ${file.name}, at ${path})`);
    } else if (file.text !== null) {
      parts.push(numbered(file.name, path, file.text));
      read.push(path);
    } else {
      parts.push(`(binary file, ${file.bytes.length} bytes: ${file.name}, at ${path})`);
    }
  }
  return { typed: typed.join("\n\n"), added: parts.join("\n\n"), attachments, read };
}

type Decoded = { name: string; mimeType: string; bytes: Uint8Array; text: string | null };

function decode(block: Block): Decoded | null {
  if (block.type === "text" || block.type === "resource_link") return null;
  if (block.type === "audio") throw new BlockError("audio blocks are not supported (promptCapabilities.audio is false)");
  if (block.type === "image") {
    if (!(IMAGE_TYPES as readonly string[]).includes(block.mimeType)) {
      throw new BlockError(`an image must be one of ${IMAGE_TYPES.join(", ")}, not ${block.mimeType}`);
    }
    const bytes = base64(block.data, "image");
    return { name: nameFrom(block.uri ?? null, `image.${block.mimeType.split("/")[1]}`), mimeType: block.mimeType, bytes, text: null };
  }
  const { resource } = block;
  const name = nameFrom(resource.uri, "attachment");
  if ("text" in resource) {
    const bytes = Buffer.from(resource.text, "utf8");
    checkSize(bytes.length, name);
    return { name, mimeType: resource.mimeType ?? "text/plain", bytes, text: resource.text };
  }
  const bytes = base64(resource.blob, name);
  const mimeType = resource.mimeType ?? "application/octet-stream";
  if (mimeType.startsWith("image/") && !(IMAGE_TYPES as readonly string[]).includes(mimeType)) {
    return { name, mimeType: "application/octet-stream", bytes, text: null };
  }
  return { name, mimeType, bytes, text: null };
}

function base64(data: string, what: string): Uint8Array {
  const clean = data.replace(/\s+/g, "");
  if (clean.length % 4 === 1 || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean)) throw new BlockError(`the data of ${what} is not valid base64`);
  const estimated = Math.floor((clean.length * 3) / 4);
  checkSize(estimated, what);
  const bytes = Buffer.from(clean, "base64");
  checkSize(bytes.length, what);
  return bytes;
}

function checkSize(bytes: number, what: string): void {
  if (bytes > MAX_BLOCK_BYTES) throw new BlockError(`${what} is ${mb(bytes)} decoded; the limit is 10 MB a block`);
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
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

/** Writes an upload under a name of its own (<time>-<random>-<name>), so two of one name stay two. */
function save(dir: string, name: string, bytes: Uint8Array): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const random = Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex");
  const path = join(dir, `${Date.now()}-${random}-${name}`);
  writeFileSync(path, bytes, { mode: 0o600 });
  return path;
}

/** A text attachment as the model sees an @file: line-numbered. */
function numbered(name: string, path: string, text: string): string {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const width = String(lines.length).length;
  const body = lines.map((line, i) => `${String(i + 1).padStart(width)}\t${line}`).join("\n");
  return `<file name="${name}" path="${path}">\n${body}\n</file>`;
}
