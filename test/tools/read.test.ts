import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readTool } from "../../src/tools/read.ts";
import { cleanupTempDirs, makeContext, run } from "./context.ts";

afterAll(cleanupTempDirs);

const lines = (n: number, prefix = "line") => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);

function setup(files: Record<string, string | Uint8Array>, opts: { vision?: boolean } = {}) {
  const made = makeContext(opts);
  for (const [name, content] of Object.entries(files)) {
    const path = join(made.ctx.root, name);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, content);
  }
  return made;
}

describe("read", () => {
  test("numbers lines right-aligned with a tab, and marks the file as read", async () => {
    const { ctx, rec } = setup({ "a.txt": `${lines(10).join("\n")}\n` });
    const result = await run(readTool, { path: "a.txt", offset: 8 }, ctx);
    expect(result.isError).toBeUndefined();
    expect(result.output).toBe(" 8\tline 8\n 9\tline 9\n10\tline 10");
    expect(rec.read.has(join(ctx.root, "a.txt"))).toBe(true);
  });

  test("a range says there is more and which offset reads on", async () => {
    const { ctx } = setup({ "a.txt": lines(10).join("\n") });
    const result = await run(readTool, { path: "a.txt", offset: 3, limit: 2 }, ctx);
    expect(result.output).toBe("3\tline 3\n4\tline 4\n\n(lines 3-4 of 10 shown; the file continues: read on with offset 5)");
  });

  test("reads 2000 lines by default and counts the rest", async () => {
    const { ctx } = setup({ "big.txt": `${lines(2500, "l").join("\n")}\n` });
    const result = await run(readTool, { path: "big.txt" }, ctx);
    const out = result.output.split("\n");
    expect(out[0]).toBe("   1\tl 1");
    expect(out[1999]).toBe("2000\tl 2000");
    expect(result.output).toContain("(lines 1-2000 of 2500 shown; the file continues: read on with offset 2001)");
  });

  test("stops at about 30,000 characters, at a line's end, and says which offset reads on", async () => {
    const { ctx } = setup({ "code.ts": `${lines(2000, "const value = someFunction(argument, other);").join("\n")}\n` });
    const result = await run(readTool, { path: "code.ts" }, ctx);
    expect(result.output.length).toBeLessThanOrEqual(30_000);
    const shownLines = result.output.split("\n\n(lines")[0]?.split("\n") ?? [];
    expect(shownLines.at(-1)).toMatch(/^\s*\d+\tconst value = someFunction\(argument, other\); \d+$/);
    expect(result.output).toContain(`(lines 1-${shownLines.length} of 2000 shown; the file continues: read on with offset ${shownLines.length + 1})`);
  });

  test("counts lines of a file larger than one stream chunk", async () => {
    const { ctx } = setup({ "huge.txt": lines(200_000, "x".repeat(20)).join("\n") });
    const result = await run(readTool, { path: "huge.txt", limit: 1 }, ctx);
    expect(result.output).toContain("of 200000 shown");
  });

  test("cuts lines longer than 2000 characters with a note", async () => {
    const { ctx } = setup({ "long.txt": `${"x".repeat(2500)}\nshort\n` });
    const result = await run(readTool, { path: "long.txt" }, ctx);
    expect(result.output).toContain(`1\t${"x".repeat(2000)}… [line cut: 500 more characters]`);
    expect(result.output).toContain("2\tshort");
  });

  test("a single huge line is cut without being held whole", async () => {
    const { ctx } = setup({ "min.js": `${"y".repeat(3_000_000)}\nnext\n` });
    const result = await run(readTool, { path: "min.js" }, ctx);
    expect(result.output).toBe(`1\t${"y".repeat(2000)}… [line cut: 2998000 more characters]\n2\tnext`);
  });

  test("shows CRLF lines without the carriage return", async () => {
    const { ctx } = setup({ "win.txt": "a\r\nb\r\n" });
    expect((await run(readTool, { path: "win.txt" }, ctx)).output).toBe("1\ta\n2\tb");
  });

  test("an empty file and an offset past the end are said plainly", async () => {
    const { ctx } = setup({ "empty.txt": "", "two.txt": "a\nb\n" });
    expect((await run(readTool, { path: "empty.txt" }, ctx)).output).toBe("empty.txt is empty.");
    expect((await run(readTool, { path: "two.txt", offset: 5 }, ctx)).output).toBe("two.txt has 2 lines: offset 5 is past its end.");
  });

  test("a binary file gives its size, not its bytes", async () => {
    const { ctx } = setup({ "nul.bin": new Uint8Array([65, 0, 66, 67]), "latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]) });
    expect((await run(readTool, { path: "nul.bin" }, ctx)).output).toBe("nul.bin is a binary file, 4 bytes: it is not shown.");
    expect((await run(readTool, { path: "latin1.txt" }, ctx)).output).toBe("latin1.txt is a binary file, 5 bytes: it is not shown.");
  });

  test("a UTF-8 character cut at the 8 KiB sniff boundary is still text", async () => {
    const { ctx } = setup({ "utf8.txt": `${"a".repeat(8191)}é\n` });
    expect((await run(readTool, { path: "utf8.txt" }, ctx)).output).toStartWith(`1\t${"a".repeat(1999)}`);
  });

  test("an image goes to a vision model as base64", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
    const { ctx } = setup({ "pic.png": png }, { vision: true });
    const result = await run(readTool, { path: "pic.png" }, ctx);
    expect(result.images).toEqual([{ mimeType: "image/png", data: Buffer.from(png).toString("base64"), path: join(ctx.root, "pic.png") }]);
  });

  test("an image for a model without vision is a sentence", async () => {
    const { ctx } = setup({ "pic.jpg": new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 1]) });
    const result = await run(readTool, { path: "pic.jpg" }, ctx);
    expect(result.images).toBeUndefined();
    expect(result.output).toBe("pic.jpg is an image (image/jpeg, 6 bytes); this model cannot see images, so its content is not shown.");
  });

  test("a missing file is an error naming similar files", async () => {
    const { ctx } = setup({ "src/config.ts": "", "src/confg.ts": "", "src/other.md": "" });
    const result = await run(readTool, { path: "src/config.js" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toBe("src/config.js does not exist. Did you mean: src/config.ts, src/confg.ts?");
    const noDir = await run(readTool, { path: "nope/x.ts" }, ctx);
    expect(noDir.output).toBe("nope/x.ts does not exist, nor does its directory nope.");
  });

  test("a directory is an error pointing to list", async () => {
    const { ctx } = setup({ "src/a.ts": "" });
    const result = await run(readTool, { path: "src" }, ctx);
    expect(result).toMatchObject({ isError: true, output: "src is a directory: use the list tool to see what it holds." });
  });

  test("title and paths resolve against cwd and show paths from the root", () => {
    const { ctx } = makeContext();
    const sub = { root: ctx.root, cwd: join(ctx.root, "src") };
    expect(readTool.title({ path: "a.ts" }, sub)).toBe("Read src/a.ts");
    expect(readTool.paths?.({ path: "../b.ts" }, sub)).toEqual([join(ctx.root, "b.ts")]);
  });
});
