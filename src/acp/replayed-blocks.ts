import { readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import type { ShownBlock } from "../engine/records.ts";
import type { acp } from "../rpc/agent.ts";

/** The largest image replayed as the image: past it (or with its saved copy gone) it is a link to that copy, and the replay's memory stays bounded. */
export const MAX_REPLAYED_IMAGE = 5 * 1024 * 1024;

/** The person's blocks as their editor showed them live, for user_message_chunks (records.ts ShownBlock). */
export function replayedBlocks(blocks: readonly ShownBlock[]): acp.ContentBlock[] {
  return blocks.map((block): acp.ContentBlock => {
    if (block.type === "text") return block;
    if (block.type === "resource_link") return block;
    if (block.type === "resource") return { type: "resource", resource: { uri: block.uri, text: block.text, ...(block.mimeType ? { mimeType: block.mimeType } : {}) } };
    const data = imageData(block.path);
    if (data === null) return { type: "resource_link", uri: Bun.pathToFileURL(block.path).href, name: basename(block.path), mimeType: block.mimeType };
    return { type: "image", mimeType: block.mimeType, data, ...(block.uri ? { uri: block.uri } : {}) };
  });
}

/** The bytes a replayed block (an update's content) carries, to bound what the replay holds before it writes it. */
export function blockWeight(content: unknown): number {
  if (typeof content !== "object" || content === null) return 0;
  if ("data" in content && typeof content.data === "string") return content.data.length;
  const resource = "resource" in content ? content.resource : null;
  if (typeof resource === "object" && resource !== null && "text" in resource && typeof resource.text === "string") return resource.text.length;
  return 0;
}

/** The saved copy as base64, or null when it is gone or larger than MAX_REPLAYED_IMAGE. */
function imageData(path: string): string | null {
  try {
    if (statSync(path).size > MAX_REPLAYED_IMAGE) return null;
    return readFileSync(path).toString("base64");
  } catch {
    return null;
  }
}
