import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { multiEditTool } from "../../src/tools/multi-edit.ts";
import { readTool } from "../../src/tools/read.ts";
import { cleanupTempDirs, makeContext, run } from "./context.ts";

afterAll(cleanupTempDirs);

const SOURCE = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n";

/** A context with one file in it, already read when `read` is true. */
async function withFile(content: string, opts: { read?: boolean } = {}) {
  const made = makeContext();
  const path = join(made.ctx.root, "src.ts");
  writeFileSync(path, content);
  if (opts.read ?? true) await run(readTool, { path: "src.ts" }, made.ctx);
  return { ...made, path };
}

describe("multi_edit", () => {
  test("applies every edit at once, with one diff, after beforeChange, and the file stays read", async () => {
    const { ctx, rec, path } = await withFile(SOURCE);
    const edits = [
      { old_string: "return 1;", new_string: "return 10;" },
      { old_string: "function b()", new_string: "function bee()" },
      { old_string: "return 2;", new_string: "return 20;" },
    ];
    const result = await run(multiEditTool, { path: "src.ts", edits }, ctx);
    const after = "function a() {\n  return 10;\n}\n\nfunction bee() {\n  return 20;\n}\n";
    expect(result.isError).toBeUndefined();
    expect(readFileSync(path, "utf8")).toBe(after);
    expect(result.output).toStartWith("Edited src.ts (3 edits, 3 replacements):\n@@ -1,7 +1,7 @@\n function a() {\n-  return 1;\n+  return 10;");
    expect(result.diffs).toEqual([{ path, oldText: SOURCE, newText: after }]);
    expect(rec.beforeChange).toEqual([path]);
    expect(ctx.files.readState(path)).toBe("current");
  });

  test("a failing second edit leaves the file byte-identical and says which edit failed and why", async () => {
    const { ctx, rec, path } = await withFile(SOURCE);
    const edits = [
      { old_string: "return 1;", new_string: "return 10;" },
      { old_string: "return 3;", new_string: "return 30;" },
    ];
    const result = await run(multiEditTool, { path: "src.ts", edits }, ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toStartWith("Edit 2 of 2: old_string was not found in src.ts.");
    expect(result.output).toEndWith("None of the 2 edits was made: src.ts is unchanged.");
    expect(readFileSync(path)).toEqual(Buffer.from(SOURCE));
    expect(rec.beforeChange).toEqual([]);
  });

  test("an old_string found more than once fails, and replace_all takes them all", async () => {
    const { ctx, path } = await withFile(SOURCE);
    const twice = await run(multiEditTool, { path: "src.ts", edits: [{ old_string: "function a", new_string: "function x" }, { old_string: "  return", new_string: "  yield" }] }, ctx);
    expect(twice.output).toStartWith("Edit 2 of 2: old_string occurs 2 times in src.ts");
    expect(readFileSync(path, "utf8")).toBe(SOURCE);
    const all = await run(multiEditTool, { path: "src.ts", edits: [{ old_string: "function a", new_string: "function x" }, { old_string: "  return", new_string: "  yield", replace_all: true }] }, ctx);
    expect(all.output).toStartWith("Edited src.ts (2 edits, 3 replacements)");
    expect(readFileSync(path, "utf8")).toBe(SOURCE.replace("function a", "function x").replaceAll("  return", "  yield"));
  });

  test("overlapping edits are refused, naming both", async () => {
    const { ctx, path } = await withFile(SOURCE);
    const edits = [
      { old_string: "function a() {\n  return 1;", new_string: "function a() {\n  return 0;" },
      { old_string: "return 1;\n}", new_string: "return 2;\n}" },
    ];
    const result = await run(multiEditTool, { path: "src.ts", edits }, ctx);
    expect(result.output).toStartWith("Edits 1 and 2 of 2 overlap: their old_strings share text of src.ts.");
    expect(readFileSync(path, "utf8")).toBe(SOURCE);
  });

  test("an edit of text an earlier edit writes is told every old_string is matched in the file as it is", async () => {
    const { ctx } = await withFile(SOURCE);
    const edits = [
      { old_string: "return 1;", new_string: "return one;" },
      { old_string: "return one;", new_string: "return uno;" },
    ];
    const result = await run(multiEditTool, { path: "src.ts", edits }, ctx);
    expect(result.output).toContain("It is text edit 1 writes: every old_string is matched in the file as it is before this call");
  });

  test("refuses a file not read, or changed since it was read", async () => {
    const unread = await withFile(SOURCE, { read: false });
    const edits = [{ old_string: "return 1;", new_string: "return 10;" }];
    expect((await run(multiEditTool, { path: "src.ts", edits }, unread.ctx)).output).toBe("src.ts has not been read in this session: read it first, then edit it.");
    const changed = await withFile(SOURCE);
    writeFileSync(changed.path, `${SOURCE}// theirs\n`);
    const result = await run(multiEditTool, { path: "src.ts", edits }, changed.ctx);
    expect(result.output).toStartWith("src.ts has changed since you last read it");
    expect(readFileSync(changed.path, "utf8")).toBe(`${SOURCE}// theirs\n`);
  });

  test("the preview shows the whole change; a failing call previews nothing", async () => {
    const { ctx, path } = await withFile(SOURCE);
    const edits = [
      { old_string: "return 1;", new_string: "return 10;" },
      { old_string: "return 2;", new_string: "return 20;" },
    ];
    const preview = await multiEditTool.preview?.(multiEditTool.schema.parse({ path: "src.ts", edits }), ctx);
    expect(preview).toEqual([{ path, oldText: SOURCE, newText: SOURCE.replace("return 1;", "return 10;").replace("return 2;", "return 20;") }]);
    expect(readFileSync(path, "utf8")).toBe(SOURCE);
    const failing = await multiEditTool.preview?.(multiEditTool.schema.parse({ path: "src.ts", edits: [...edits, { old_string: "nope", new_string: "x" }] }), ctx);
    expect(failing).toEqual([]);
  });

  test("a CRLF file keeps its line endings", async () => {
    const crlf = SOURCE.replace(/\n/g, "\r\n");
    const { ctx, path } = await withFile(crlf);
    await run(multiEditTool, { path: "src.ts", edits: [{ old_string: "{\n  return 1;", new_string: "{\n  // one\n  return 1;" }, { old_string: "return 2;", new_string: "return 20;" }] }, ctx);
    expect(readFileSync(path, "utf8")).toBe(crlf.replace("{\r\n  return 1;", "{\r\n  // one\r\n  return 1;").replace("return 2;", "return 20;"));
  });

  test("asks for paths as edit does: the file it touches, resolved", () => {
    const { ctx } = makeContext();
    expect(multiEditTool.paths?.(multiEditTool.schema.parse({ path: "../x.ts", edits: [{ old_string: "a", new_string: "b" }] }), ctx)).toEqual([join(ctx.root, "../x.ts")]);
    expect(multiEditTool.title({ path: "a/b.ts", edits: [{ old_string: "a", new_string: "b" }] }, ctx)).toBe("Edit a/b.ts (1 edit)");
  });
});
