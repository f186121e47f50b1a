import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { unifiedDiff } from "../../src/tools/diff.ts";
import { editTool } from "../../src/tools/edit.ts";
import { readTool } from "../../src/tools/read.ts";
import { writeTool } from "../../src/tools/write.ts";
import { cleanupTempDirs, makeContext, run } from "./context.ts";

afterAll(cleanupTempDirs);

/** A context with one file in it, already read when `read` is true. */
async function withFile(name: string, content: string, opts: { read?: boolean; mode?: number } = {}) {
  const made = makeContext();
  const path = join(made.ctx.root, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
  if (opts.mode !== undefined) chmodSync(path, opts.mode);
  if (opts.read ?? true) await run(readTool, { path: name }, made.ctx);
  return { ...made, path };
}

describe("write", () => {
  test("refuses an existing file not read in this session, and leaves it alone", async () => {
    const { ctx, rec, path } = await withFile("a.txt", "old\n", { read: false });
    const result = await run(writeTool, { path: "a.txt", content: "new\n" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toBe("a.txt already exists and has not been read in this session: read it first, then write it (or use edit).");
    expect(readFileSync(path, "utf8")).toBe("old\n");
    expect(rec.beforeChange).toEqual([]);
  });

  test("replaces a file read before, with its diff, after beforeChange", async () => {
    const { ctx, rec, path } = await withFile("a.txt", "old\n");
    const result = await run(writeTool, { path: "a.txt", content: "new\n" }, ctx);
    expect(result.output).toBe("Wrote a.txt (1 line).");
    expect(result.diffs).toEqual([{ path, oldText: "old\n", newText: "new\n" }]);
    expect(rec.beforeChange).toEqual([path]);
    expect(readFileSync(path, "utf8")).toBe("new\n");
  });

  test("creates missing parent directories, and leaves no temp file behind", async () => {
    const { ctx, rec } = makeContext();
    const result = await run(writeTool, { path: "deep/er/new.ts", content: "a\nb" }, ctx);
    expect(result.output).toBe("Created deep/er/new.ts (2 lines).");
    expect(result.diffs?.[0]?.oldText).toBeNull();
    const abs = join(ctx.root, "deep/er/new.ts");
    expect(readFileSync(abs, "utf8")).toBe("a\nb");
    expect(readdirSync(join(ctx.root, "deep/er"))).toEqual(["new.ts"]);
    expect(rec.beforeChange).toEqual([abs]);
    expect(ctx.files.readState(abs)).toBe("current");
  });

  test("keeps an existing file's mode", async () => {
    const { ctx, path } = await withFile("run.sh", "echo a\n", { mode: 0o751 });
    await run(writeTool, { path: "run.sh", content: "echo b\n" }, ctx);
    expect(statSync(path).mode & 0o777).toBe(0o751);
  });

  test("writes through a symlink, which stays a link", async () => {
    const { ctx, path } = await withFile("real.txt", "a\n");
    symlinkSync("real.txt", join(ctx.root, "link.txt"));
    await run(readTool, { path: "link.txt" }, ctx);
    await run(writeTool, { path: "link.txt", content: "b\n" }, ctx);
    expect(lstatSync(join(ctx.root, "link.txt")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(ctx.root, "link.txt"))).toBe("real.txt");
    expect(readFileSync(path, "utf8")).toBe("b\n");
  });

  test("a directory in the way is an error, not an exception", async () => {
    const { ctx } = makeContext();
    mkdirSync(join(ctx.root, "dir"));
    const result = await run(writeTool, { path: "dir", content: "x" }, ctx);
    expect(result).toMatchObject({ isError: true, output: "dir is a directory." });
  });
});

describe("a file the person changed after the model read it", () => {
  test("write is refused, says to read it again, and the person's text stays", async () => {
    const { ctx, rec, path } = await withFile("a.txt", "old\n");
    writeFileSync(path, "the person's edit\n");
    const result = await run(writeTool, { path: "a.txt", content: "model's\n" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toContain("a.txt has changed since you last read it");
    expect(result.output).toContain("read it again");
    expect(readFileSync(path, "utf8")).toBe("the person's edit\n");
    expect(rec.beforeChange).toEqual([]);
  });

  test("edit is refused the same way, even when the old text is still there", async () => {
    const { ctx, path } = await withFile("a.ts", "one\ntwo\n");
    writeFileSync(path, "one\ntwo\nthree, typed by the person\n");
    const result = await run(editTool, { path: "a.ts", old_string: "two", new_string: "2" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toContain("a.ts has changed since you last read it");
    expect(readFileSync(path, "utf8")).toBe("one\ntwo\nthree, typed by the person\n");
  });

  test("after reading it again, the edit goes through", async () => {
    const { ctx, path } = await withFile("a.ts", "one\ntwo\n");
    writeFileSync(path, "one\ntwo\nthree\n");
    await run(readTool, { path: "a.ts" }, ctx);
    const result = await run(editTool, { path: "a.ts", old_string: "two", new_string: "2" }, ctx);
    expect(result.isError ?? false).toBe(false);
    expect(readFileSync(path, "utf8")).toBe("one\n2\nthree\n");
  });

  test("a file only touched (same bytes, new mtime) still counts as read", async () => {
    const { ctx, path } = await withFile("a.ts", "one\n");
    const later = new Date(Date.now() + 5_000);
    utimesSync(path, later, later);
    const result = await run(editTool, { path: "a.ts", old_string: "one", new_string: "1" }, ctx);
    expect(result.isError ?? false).toBe(false);
  });

  test("the model's own edits keep the file current: a second edit needs no read", async () => {
    const { ctx, path } = await withFile("a.ts", "one\ntwo\n");
    await run(editTool, { path: "a.ts", old_string: "one", new_string: "1" }, ctx);
    const second = await run(editTool, { path: "a.ts", old_string: "two", new_string: "2" }, ctx);
    expect(second.isError ?? false).toBe(false);
    await run(writeTool, { path: "a.ts", content: "x\n" }, ctx);
    expect((await run(editTool, { path: "a.ts", old_string: "x", new_string: "y" }, ctx)).isError ?? false).toBe(false);
    expect(readFileSync(path, "utf8")).toBe("y\n");
  });

  test("a change of the same size in the same coarse mtime tick is still seen (the bytes are checked)", async () => {
    const made = makeContext();
    const path = join(made.ctx.root, "a.ts");
    writeFileSync(path, "one\n");
    const tick = Math.floor(Date.now() / 1000);
    utimesSync(path, tick, tick);
    await run(readTool, { path: "a.ts" }, made.ctx);
    writeFileSync(path, "two\n");
    utimesSync(path, tick, tick);
    const result = await run(editTool, { path: "a.ts", old_string: "two", new_string: "2" }, made.ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toContain("has changed since you last read it");
    expect(readFileSync(path, "utf8")).toBe("two\n");
  });

  test("a file deleted after it was read is not written over by edit", async () => {
    const { ctx, path } = await withFile("a.ts", "one\n");
    rmSync(path);
    writeFileSync(path, "new file, same name\n");
    const result = await run(editTool, { path: "a.ts", old_string: "new", new_string: "old" }, ctx);
    expect(result.isError).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("new file, same name\n");
  });
});

describe("edit", () => {
  test("replaces a unique string, shows a diff and sets diffs", async () => {
    const { ctx, rec, path } = await withFile("a.ts", "one\ntwo\nthree\n");
    const result = await run(editTool, { path: "a.ts", old_string: "two", new_string: "2" }, ctx);
    expect(result.isError).toBeUndefined();
    expect(result.output).toBe("Edited a.ts (1 replacement):\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three");
    expect(result.diffs).toEqual([{ path, oldText: "one\ntwo\nthree\n", newText: "one\n2\nthree\n" }]);
    expect(rec.beforeChange).toEqual([path]);
    expect(readFileSync(path, "utf8")).toBe("one\n2\nthree\n");
  });

  test("refuses a file not read first", async () => {
    const { ctx, path } = await withFile("a.ts", "x\n", { read: false });
    const result = await run(editTool, { path: "a.ts", old_string: "x", new_string: "y" }, ctx);
    expect(result).toMatchObject({ isError: true, output: "a.ts has not been read in this session: read it first, then edit it." });
    expect(readFileSync(path, "utf8")).toBe("x\n");
  });

  test("old_string not found is an error showing the closest lines", async () => {
    const { ctx } = await withFile("a.ts", "function main() {\n\treturn compute(1);\n}\n");
    const result = await run(editTool, { path: "a.ts", old_string: "function main() {\n  return compute(2);", new_string: "x" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toStartWith("old_string was not found in a.ts.");
    expect(result.output).toContain("1\tfunction main() {");
  });

  test("old_string with read's line numbers gets a hint", async () => {
    const { ctx } = await withFile("a.ts", "alpha\nbeta\n");
    const result = await run(editTool, { path: "a.ts", old_string: "1\talpha", new_string: "x" }, ctx);
    expect(result.output).toContain("leave out the number and the tab");
  });

  test("old_string found more than once without replace_all says how many", async () => {
    const { ctx, path } = await withFile("a.ts", "x = 1\nx = 1\n");
    const result = await run(editTool, { path: "a.ts", old_string: "x = 1", new_string: "x = 2" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toBe(
      "old_string occurs 2 times in a.ts: add surrounding lines to old_string so it matches exactly one place, or set replace_all to change all 2.",
    );
    expect(readFileSync(path, "utf8")).toBe("x = 1\nx = 1\n");
  });

  test("replace_all replaces every occurrence, literally (no $ patterns)", async () => {
    const { ctx, path } = await withFile("a.ts", "foo(); foo();\nfoo\n");
    const result = await run(editTool, { path: "a.ts", old_string: "foo", new_string: "$&bar", replace_all: true }, ctx);
    expect(result.output).toStartWith("Edited a.ts (3 replacements):");
    expect(readFileSync(path, "utf8")).toBe("$&bar(); $&bar();\n$&bar\n");
  });

  test("old_string equal to new_string is an error", async () => {
    const { ctx } = await withFile("a.ts", "x\n");
    const result = await run(editTool, { path: "a.ts", old_string: "x", new_string: "x" }, ctx);
    expect(result).toMatchObject({ isError: true, output: "old_string and new_string are the same: there is nothing to change." });
  });

  test("a CRLF file edited with LF strings matches and keeps CRLF byte for byte", async () => {
    const { ctx, path } = await withFile("win.txt", "alpha\r\nbeta\r\ngamma\r\n");
    const result = await run(editTool, { path: "win.txt", old_string: "alpha\nbeta", new_string: "one\ntwo\nthree" }, ctx);
    expect(result.isError).toBeUndefined();
    expect(readFileSync(path)).toEqual(Buffer.from("one\r\ntwo\r\nthree\r\ngamma\r\n"));
    expect(result.output).not.toContain("\r");
  });

  test("a single-line old_string in a CRLF file gets CRLF in a multi-line new_string", async () => {
    const { ctx, path } = await withFile("win.txt", "a\r\nb\r\n");
    await run(editTool, { path: "win.txt", old_string: "b", new_string: "b\nc" }, ctx);
    expect(readFileSync(path, "utf8")).toBe("a\r\nb\r\nc\r\n");
  });

  test("keeps the file's mode", async () => {
    const { ctx, path } = await withFile("run.sh", "echo a\n", { mode: 0o700 });
    await run(editTool, { path: "run.sh", old_string: "a", new_string: "b" }, ctx);
    expect(statSync(path).mode & 0o777).toBe(0o700);
  });

  test("a missing file says to use write", async () => {
    const { ctx } = makeContext();
    const result = await run(editTool, { path: "nope.ts", old_string: "a", new_string: "b" }, ctx);
    expect(result).toMatchObject({ isError: true, output: "nope.ts does not exist: use write to create a new file." });
  });
});

describe("unifiedDiff", () => {
  test("separate changes make separate hunks with three lines of context", () => {
    const before = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join("\n");
    const after = before.replace("l2\n", "L2\n").replace("l18\n", "");
    expect(unifiedDiff(before, after)).toBe(
      ["@@ -1,5 +1,5 @@", " l1", "-l2", "+L2", " l3", " l4", " l5", "@@ -15,6 +15,5 @@", " l15", " l16", " l17", "-l18", " l19", " l20"].join("\n"),
    );
  });

  test("adding to an empty file", () => {
    expect(unifiedDiff("", "a\nb\n")).toBe("@@ -0,0 +1,2 @@\n+a\n+b");
  });
});
