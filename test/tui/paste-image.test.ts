import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_BLOCK_BYTES } from "../../src/front/blocks.ts";
import { draggedImagePaths, imageFromBytes, imageFromFile } from "../../src/tui/paste-image.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lembas-drag-"));
  mkdirSync(join(dir, "Screen Shots"));
  for (const name of ["Screen Shots/shot one.png", "a.jpg", "b.JPEG", "c.webp", "d.gif", "notes.txt", "it's.png"]) writeFileSync(join(dir, name), "x");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a dragged image path", () => {
  test("is read as terminals paste it: escaped spaces, quotes, file:// URLs, relative to the directory", () => {
    const shot = join(dir, "Screen Shots/shot one.png");
    expect(draggedImagePaths(shot.replace(/ /g, "\\ "), "/")).toEqual([shot]);
    expect(draggedImagePaths(`'${shot}'`, "/")).toEqual([shot]);
    expect(draggedImagePaths(`"${shot}" `, "/")).toEqual([shot]);
    expect(draggedImagePaths(`file://${encodeURI(shot)}`, "/")).toEqual([shot]);
    expect(draggedImagePaths("a.jpg", dir)).toEqual([join(dir, "a.jpg")]);
    expect(draggedImagePaths("it\\'s.png", dir)).toEqual([join(dir, "it's.png")]);
    expect(draggedImagePaths(`a.jpg b.JPEG ${join(dir, "c.webp")} 'd.gif'`, dir)).toEqual(["a.jpg", "b.JPEG", "c.webp", "d.gif"].map((n) => join(dir, n)));
  });

  test("is not taken for text that is not only image files that exist", () => {
    expect(draggedImagePaths("notes.txt", dir)).toBeNull();
    expect(draggedImagePaths("missing.png", dir)).toBeNull();
    expect(draggedImagePaths("look at a.jpg", dir)).toBeNull();
    expect(draggedImagePaths("a.jpg\nb.JPEG", dir)).toBeNull();
    // Lines as a terminal pastes them (CR), and a paste longer than any drag of files.
    expect(draggedImagePaths("a.jpg\rb.JPEG", dir)).toBeNull();
    expect(draggedImagePaths(`${"a.jpg ".repeat(20_000)}b.JPEG`, dir)).toBeNull();
    expect(draggedImagePaths("'a.jpg", dir)).toBeNull();
    expect(draggedImagePaths("Screen\\ Shots", dir)).toBeNull();
    expect(draggedImagePaths("   ", dir)).toBeNull();
  });
});

describe("an image for the prompt", () => {
  test("carries its bytes as base64, its type from the extension, and its name", () => {
    const take = imageFromFile(join(dir, "b.JPEG"));
    expect(take).toEqual({ ok: true, image: { data: Buffer.from("x").toString("base64"), mimeType: "image/jpeg", name: "b.JPEG" }, bytes: 1 });
  });

  test("over 10 MiB is refused with a sentence; exactly 10 MiB is taken", () => {
    const over = imageFromBytes(new Uint8Array(MAX_BLOCK_BYTES + 1), "image/png", "big.png");
    expect(over.ok).toBe(false);
    if (!over.ok) expect(over.message).toBe("the image big.png is 10.0 MiB (10485761 bytes); an image may be at most 10 MiB (10485760 bytes), so it was not attached");
    expect(imageFromBytes(new Uint8Array(MAX_BLOCK_BYTES), "image/png", "edge.png").ok).toBe(true);
  });
});
