import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { capOutput, MAX_RESULT_CHARS, type ToolResult } from "../tools/tool.ts";

/** The largest image (base64 characters) passed on to a vision model; a larger one becomes a sentence. */
export const MAX_IMAGE_CHARS = 7_000_000;

/** Where a result came from: the images' path names it (`mcp:<server>/<tool>`). */
export type ResultSource = { server: string; tool: string; vision: boolean };

/**
 * An MCP tool result as the model sees it: text as it is, images as image parts for a vision
 * model (else a sentence), resources as their text (else a sentence), structured content as JSON
 * when nothing else says it; `isError` stays an error. The text is capped like a built-in's.
 */
export function toToolResult(result: CallToolResult, source: ResultSource): ToolResult {
  const texts: string[] = [];
  const images: NonNullable<ToolResult["images"]> = [];
  const path = `mcp:${source.server}/${source.tool}`;
  for (const block of result.content ?? []) {
    const part = describeBlock(block, source.vision);
    if (part.image) images.push({ ...part.image, path });
    if (part.text) texts.push(part.text);
  }
  if (texts.length === 0 && result.structuredContent !== undefined) texts.push(JSON.stringify(result.structuredContent, null, 2));
  if (texts.length === 0 && images.length === 0) texts.push(result.isError ? "The tool failed and said nothing more." : "(no output)");
  return {
    output: capOutput(texts.join("\n")),
    ...(result.isError ? { isError: true } : {}),
    ...(images.length > 0 ? { images } : {}),
    ...(result.structuredContent !== undefined ? { meta: { structuredContent: result.structuredContent } } : {}),
  };
}

/**
 * A result as a session's tool gives it on, to the front ends too (the tool_end event's meta, an
 * editor's rawOutput, the link): structured content within the bound of the model's text, as its
 * JSON measures; past it left out, with a sentence saying so. The model's text is capped already.
 */
export function boundedForFrontEnds(result: ToolResult): ToolResult {
  const structured = result.meta?.structuredContent;
  if (structured === undefined) return result;
  const chars = JSON.stringify(structured)?.length ?? 0;
  if (chars <= MAX_RESULT_CHARS) return result;
  const { structuredContent: _left, ...meta } = result.meta ?? {};
  const leftOut = `the tool's structured content is left out here: ${chars} characters of JSON, over the ${MAX_RESULT_CHARS} a result may hold (the model got the output, capped)`;
  return { ...result, meta: { ...meta, structuredContentLeftOut: leftOut } };
}

type Part = { text?: string; image?: { mimeType: string; data: string } };

function describeBlock(block: ContentBlock, vision: boolean): Part {
  switch (block.type) {
    case "text":
      return { text: block.text };
    case "image":
      if (!vision) return { text: `[an image (${block.mimeType}) the model cannot see: it takes no images]` };
      if (block.data.length > MAX_IMAGE_CHARS) return { text: `[an image (${block.mimeType}) too large to send: ${sizeOf(block.data)}]` };
      return { image: { mimeType: block.mimeType, data: block.data } };
    case "audio":
      return { text: `[audio (${block.mimeType}), ${sizeOf(block.data)}, which the model cannot hear]` };
    case "resource_link":
      return { text: `[resource ${block.uri}${block.name ? ` (${block.name})` : ""}${block.description ? `: ${block.description}` : ""}]` };
    case "resource": {
      const resource = block.resource;
      if ("text" in resource) return { text: `[resource ${resource.uri}]\n${resource.text}` };
      return { text: `[resource ${resource.uri} (${resource.mimeType ?? "binary"}), ${sizeOf(resource.blob)}, not shown]` };
    }
  }
}

function sizeOf(base64: string): string {
  const bytes = Math.floor((base64.length * 3) / 4);
  return bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : `${Math.ceil(bytes / 1_000)} KB`;
}

