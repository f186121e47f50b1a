import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { globTool } from "../../src/tools/glob.ts";
import { createGrepTool } from "../../src/tools/grep.ts";
import { listTool } from "../../src/tools/list.ts";
import { search } from "../../src/tools/search.ts";
import { cleanupTempDirs, makeContext, run, tempDir } from "./context.ts";
import { tool } from "../support/tools.ts";

afterAll(cleanupTempDirs);

/** Writes files under a fresh root; file i gets an mtime i minutes after a fixed time, so "newest first" is known. */
function tree(files: Record<string, string>): string {
  const root = tempDir();
  let minute = 0;
  for (const [name, content] of Object.entries(files)) {
    const path = join(root, name);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, content);
    const time = new Date(Date.UTC(2026, 0, 1, 0, minute++));
    utimesSync(path, time, time);
  }
  return root;
}

/** A project with ignore files at two levels, a negation, hidden files, .git and a binary file. */
const PROJECT = {
  ".gitignore": "*.log\nbuild/\nignored.txt\n",
  ".git/config": "needle\n",
  "build/out.js": "needle\n",
  "ignored.txt": "needle\n",
  "drop.log": "needle\n",
  ".hidden/h.ts": "needle\n",
  "bin.dat": "needle\0\0\0",
  "src/nested/.gitignore": "secret.ts\n!keep.log\n",
  "src/nested/secret.ts": "needle\n",
  "src/nested/keep.log": "a needle\n",
  "src/nested/c.ts": "needle\n",
  "src/.ignore": "skip.ts\n",
  "src/skip.ts": "needle\n",
  "src/b.ts": "nothing here\n",
  "src/a.ts": "const needle = 1;\ntwo\nthree\nfour\nfive\nsix\nNeedle again\neight\n",
};

const rg = tool("rg", "ripgrep", "the ripgrep half of these tests");
const engines: [string, string | null][] = [
  ["ripgrep", rg],
  ["the fallback", null],
];

describe.each(engines)("grep with %s", (name, rgPath) => {
  const grep = createGrepTool(() => ({ rg: rgPath }));
  const skip = name === "ripgrep" && !rgPath;

  test.skipIf(skip)("lists matching files newest first, honouring nested .gitignore, .ignore and negations", async () => {
    const { ctx } = makeContext({ root: tree(PROJECT) });
    const result = await run(grep, { pattern: "needle" }, ctx);
    expect(result.output).toBe(["src/a.ts", "src/nested/c.ts", "src/nested/keep.log", ".hidden/h.ts"].join("\n"));
  });

  test.skipIf(skip)("content mode gives path:line:text, context lines with dashes, -- between groups", async () => {
    const { ctx } = makeContext({ root: tree(PROJECT) });
    const result = await run(grep, { pattern: "needle", ignore_case: true, output_mode: "content", context: 1, path: "src" }, ctx);
    expect(result.output).toBe(
      [
        "src/a.ts:1:const needle = 1;",
        "src/a.ts-2-two",
        "--",
        "src/a.ts-6-six",
        "src/a.ts:7:Needle again",
        "src/a.ts-8-eight",
        "--",
        "src/nested/c.ts:1:needle",
        "--",
        "src/nested/keep.log:1:a needle",
      ].join("\n"),
    );
  });

  test.skipIf(skip)("content mode stops at the limit and says there is more", async () => {
    const { ctx } = makeContext({ root: tree(PROJECT) });
    const result = await run(grep, { pattern: "needle", output_mode: "content", limit: 2, path: "src" }, ctx);
    expect(result.output).toBe(
      "src/a.ts:1:const needle = 1;\nsrc/nested/c.ts:1:needle\n\n(the first 2 matching lines are shown; there are more: narrow the pattern, path or glob, or raise limit)",
    );
  });

  test.skipIf(skip)("count mode, paths relative to cwd", async () => {
    const root = tree(PROJECT);
    const { ctx } = makeContext({ root, cwd: join(root, "src") });
    const result = await run(grep, { pattern: "needle", output_mode: "count", ignore_case: true }, ctx);
    expect(result.output).toBe("a.ts:2\nnested/c.ts:1\nnested/keep.log:1\n\n4 matching lines in 3 files");
  });

  test.skipIf(skip)("a glob picks files, a negated glob leaves them out", async () => {
    const { ctx } = makeContext({ root: tree(PROJECT) });
    expect((await run(grep, { pattern: "needle", glob: "*.log" }, ctx)).output).toBe("src/nested/keep.log\ndrop.log");
    expect((await run(grep, { pattern: "needle", glob: "!*.ts" }, ctx)).output).toBe("src/nested/keep.log");
    expect((await run(grep, { pattern: "needle", glob: "src/*.{ts,js}" }, ctx)).output).toBe("src/a.ts\nsrc/skip.ts");
  });

  test.skipIf(skip)("a subdirectory as path still honours the ignore files above it", async () => {
    const { ctx } = makeContext({ root: tree(PROJECT) });
    const result = await run(grep, { pattern: "needle", path: "src/nested" }, ctx);
    expect(result.output).toBe("src/nested/c.ts\nsrc/nested/keep.log");
  });

  test.skipIf(skip)("files mode caps at the limit with a note", async () => {
    const { ctx } = makeContext({ root: tree(PROJECT) });
    const result = await run(grep, { pattern: "needle", limit: 1 }, ctx);
    expect(result.output).toBe("src/a.ts\n\n(1 of 4 files shown: narrow the pattern, path or glob to see the rest)");
  });

  test.skipIf(skip)("a match in a 5 MB line: what the search holds of the line is bounded, and the result says it was cut", async () => {
    const root = tree({ "dist/app.min.js": `${"x".repeat(3_000_000)}needle${"y".repeat(2_000_000)}\n`, "dist/b.js": `short\n${"z".repeat(10_000)}\nneedle\n` });
    const found = await search(
      { pattern: "needle", base: root, root, ignoreCase: false, mode: "content", context: 1, limit: 10 },
      { rg: rgPath },
    );
    if (!found.ok) throw new Error(found.error);
    const lines = found.files.flatMap((file) => file.lines);
    expect(lines.map((line) => [line.n, line.match, line.text.length <= 4000, line.cut !== undefined])).toEqual([
      [1, true, true, true],
      [2, false, true, true],
      [3, true, true, false],
    ]);
    const { ctx } = makeContext({ root });
    const result = await run(grep, { pattern: "needle", output_mode: "content" }, ctx);
    expect(result.output.length).toBeLessThan(1200);
    expect(result.output).toMatch(/^dist\/app\.min\.js:1:x{500}… \[(the line is cut: over 3500|4999506) more characters\]\ndist\/b\.js:3:needle$/);
  });

  test.skipIf(skip)("no match is a plain answer; a bad pattern and a missing path are errors", async () => {
    const { ctx } = makeContext({ root: tree(PROJECT) });
    expect(await run(grep, { pattern: "zebra" }, ctx)).toMatchObject({ output: 'No matches for "zebra" in ..' });
    expect(await run(grep, { pattern: "(unclosed" }, ctx)).toMatchObject({ isError: true });
    expect(await run(grep, { pattern: "x", path: "nope" }, ctx)).toMatchObject({ isError: true, output: "nope does not exist: give an existing directory or file as path." });
  });

  test.skipIf(skip)("a pattern that is not a valid regex says how to match its characters literally (what the description no longer says)", async () => {
    const { ctx } = makeContext({ root: tree(PROJECT) });
    const result = await run(grep, { pattern: "needle(" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toEndWith("\nTo match ( ) [ ] { } . * + ? | or \\ literally, put a backslash before it (foo\\(, \\.env).");
    expect(await run(grep, { pattern: "needle\\(" }, ctx)).toMatchObject({ output: 'No matches for "needle\\\\(" in ..' });
  });
});

describe("glob", () => {
  test("matches paths relative to path, newest first, honouring .gitignore", async () => {
    const { ctx } = makeContext({ root: tree(PROJECT) });
    const newest = ["src/a.ts", "src/b.ts", "src/nested/c.ts", ".hidden/h.ts"].sort(byNewest(PROJECT));
    expect((await run(globTool, { pattern: "**/*.ts" }, ctx)).output).toBe(newest.join("\n"));
    expect((await run(globTool, { pattern: "*.ts", path: "src" }, ctx)).output).toBe("src/a.ts\nsrc/b.ts");
    expect((await run(globTool, { pattern: join(ctx.root, "src/*.ts") }, ctx)).output).toBe("src/a.ts\nsrc/b.ts");
  });

  test("caps at 1000 with a note", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1005; i++) files[`f/${String(i).padStart(4, "0")}.txt`] = "";
    const { ctx } = makeContext({ root: tree(files) });
    const result = await run(globTool, { pattern: "**/*.txt" }, ctx);
    const lines = result.output.split("\n");
    expect(lines[0]).toBe("f/1004.txt");
    expect(lines[999]).toBe("f/0005.txt");
    expect(lines.at(-1)).toBe("(1000 of 1005 files shown, the newest: narrow the pattern or path to see the rest)");
  });

  test("no match is said; a missing path is an error", async () => {
    const { ctx } = makeContext({ root: tree({ "a.md": "" }) });
    expect((await run(globTool, { pattern: "**/*.rs" }, ctx)).output).toBe("No files match **/*.rs in ..");
    expect((await run(globTool, { pattern: "*", path: "nope" }, ctx)).isError).toBe(true);
  });
});

describe("list", () => {
  test("an indented tree, directories first, honouring .gitignore", async () => {
    const { ctx } = makeContext({ root: tree(PROJECT) });
    const result = await run(listTool, {}, ctx);
    expect(result.output).toBe(
      [
        "./",
        "  .hidden/",
        "    h.ts",
        "  src/",
        "    nested/",
        "      .gitignore",
        "      c.ts",
        "      keep.log",
        "    .ignore",
        "    a.ts",
        "    b.ts",
        "  .gitignore",
        "  bin.dat",
      ].join("\n"),
    );
  });

  test("ignore patterns leave more out", async () => {
    const { ctx } = makeContext({ root: tree(PROJECT) });
    const result = await run(listTool, { path: "src", ignore: ["nested/", ".*"] }, ctx);
    expect(result.output).toBe("src/\n  a.ts\n  b.ts");
  });

  test("caps at 500 entries, shallow levels first, with a note", async () => {
    const files: Record<string, string> = { "top.txt": "" };
    for (let i = 0; i < 600; i++) files[`deep/${String(i).padStart(3, "0")}.txt`] = "";
    files["z/inner/x.txt"] = "";
    const { ctx } = makeContext({ root: tree(files) });
    const result = await run(listTool, {}, ctx);
    const lines = result.output.split("\n");
    expect(lines.slice(0, 3)).toEqual(["./", "  deep/", "    000.txt"]);
    // deep/ fills the cap before z/'s content is reached: z/ is marked as not listed.
    expect(result.output).toContain("    496.txt\n  z/ …\n  top.txt\n");
    expect(lines.at(-1)).toBe("(the first 500 entries are shown, shallow levels first: list a subdirectory to see more)");
  });

  test("a file or a missing path is an error", async () => {
    const { ctx } = makeContext({ root: tree({ "a.txt": "" }) });
    expect(await run(listTool, { path: "a.txt" }, ctx)).toMatchObject({ isError: true });
    expect(await run(listTool, { path: "nope" }, ctx)).toMatchObject({ isError: true, output: "nope does not exist." });
  });
});

/** Orders paths as the fixture's mtimes do: later in the object, newer. */
function byNewest(files: Record<string, string>): (a: string, b: string) => number {
  const order = Object.keys(files);
  return (a, b) => order.indexOf(b) - order.indexOf(a);
}

describe("grep, cancelled", () => {
  test.skipIf(!rg)("a search whose turn was cancelled before ripgrep started stops at once", async () => {
    const root = tempDir();
    const pipe = join(root, "never.fifo");
    expect(Bun.spawnSync(["mkfifo", pipe]).exitCode).toBe(0);
    // A writer that opens the pipe and never writes: ripgrep would wait on it forever.
    const writer = Bun.spawn(["sh", "-c", 'exec 3>"$1"; sleep 600', "sh", pipe], { stdout: "ignore", stderr: "ignore" });
    try {
      const cancelled = new AbortController();
      cancelled.abort();
      const { ctx } = makeContext({ root, signal: cancelled.signal });
      const result = await run(createGrepTool(() => ({ rg })), { pattern: "x", path: "never.fifo" }, ctx);
      expect(result.output).toBeString();
    } finally {
      writer.kill("SIGKILL");
      await writer.exited;
    }
  });
});
