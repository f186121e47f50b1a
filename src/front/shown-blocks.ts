import type { Attachment } from "../engine/session.ts";
import { MAX_SHOWN_TEXT, type ShownBlock } from "../engine/records.ts";
import { attachmentName, type Block } from "./blocks.ts";

/**
 * The person's blocks as their client showed them, kept with their message so that an editor's
 * session/load replays them as sent: a mention as its link, an image as the image (by its saved
 * copy), an embedded resource with its text. Only where the prompt held more than text: a prompt
 * of text alone replays as the text it stored. `saved`: the copies readBlocks wrote of uploads.
 */
export function shownBlocks(blocks: readonly Block[], saved: ReadonlyMap<Block, Attachment>): ShownBlock[] | undefined {
  if (blocks.every((block) => block.type === "text")) return undefined;
  return blocks.flatMap((block) => shown(block, saved.get(block)));
}

function shown(block: Block, copy: Attachment | undefined): ShownBlock[] {
  if (block.type === "text") return [{ type: "text", text: block.text }];
  if (block.type === "resource_link") {
    const { uri, mimeType, size, title } = block;
    return [{ type: "resource_link", uri, name: block.name ?? attachmentName(uri), ...(mimeType ? { mimeType } : {}), ...(size != null ? { size } : {}), ...(title ? { title } : {}) }];
  }
  if (block.type === "image") return copy ? [{ type: "image", mimeType: block.mimeType, path: copy.path, ...(block.uri ? { uri: block.uri } : {}) }] : [];
  if (block.type === "audio") return [];
  const { resource } = block;
  const mimeType = resource.mimeType ?? undefined;
  if ("text" in resource && resource.text.length <= MAX_SHOWN_TEXT) return [{ type: "resource", uri: resource.uri, text: resource.text, ...(mimeType ? { mimeType } : {}) }];
  // Too long to keep twice, or bytes: a link to its file (the saved copy, or the project file an unsaved buffer is of).
  const uri = copy ? Bun.pathToFileURL(copy.path).href : resource.uri;
  const size = copy?.size ?? ("text" in resource ? Buffer.byteLength(resource.text) : undefined);
  return [{ type: "resource_link", uri, name: copy?.name ?? attachmentName(resource.uri), ...(mimeType ? { mimeType } : {}), ...(size !== undefined ? { size } : {}) }];
}
