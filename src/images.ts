import { extname } from "node:path";

/** The image types a prompt can carry (and a vision model is sent), in the order a clipboard offering several is read. */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"] as const;

/** The largest image attached to a prompt or a tool's result. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

const BY_EXTENSION: Readonly<Record<string, (typeof IMAGE_TYPES)[number]>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".gif": "image/gif",
};

/** The image type a file's extension (in any case) names; undefined for a file that is no such image. */
export function imageTypeOf(path: string): string | undefined {
  return BY_EXTENSION[extname(path).toLowerCase()];
}

/** Whether a MIME type is one of the images a prompt can carry. */
export function isImageType(mimeType: string): boolean {
  return (IMAGE_TYPES as readonly string[]).includes(mimeType);
}
