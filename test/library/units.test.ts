import { describe, expect, test } from "bun:test";
import { chunkText } from "../../src/library/chunker.ts";
import { libraryChoice } from "../../src/library/choice.ts";
import { fuse, matchExpression } from "../../src/library/hybrid.ts";
import { normalised, retryAfterMs } from "../../src/library/embeddings.ts";
import { MatrixBuilder } from "../../src/library/vectors.ts";
import { libraryTool } from "../../src/tools/library.ts";
import type { LibraryBackend } from "../../src/tools/library-backend.ts";
import { makeContext } from "../tools/context.ts";

describe("chunker", () => {
  test("bounded chunks by lines, each with its line range, cut ones overlapping by whole lines", () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i + 1} ${"x".repeat(40)}`).join("\n");
    const chunks = chunkText(text, { maxChars: 500, overlapLines: 2 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(500);
      expect(c.text.split("\n")).toHaveLength(c.endLine - c.startLine + 1);
      expect(c.text.startsWith(`line ${c.startLine} `)).toBe(true);
    }
    expect(chunks[0]?.startLine).toBe(1);
    expect(chunks.at(-1)?.endLine).toBe(100);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]?.startLine).toBe((chunks[i - 1]?.endLine ?? 0) - 1);
  });

  test("markdown: a heading starts a chunk, not one inside fenced code", () => {
    const md = "# A\none\n```\n# not a heading\n```\n## B\ntwo\n";
    expect(chunkText(md, { markdown: true }).map((c) => [c.startLine, c.endLine])).toEqual([
      [1, 5],
      [6, 7],
    ]);
    expect(chunkText(md).map((c) => [c.startLine, c.endLine])).toEqual([[1, 7]]);
  });

  test("a line longer than a chunk is cut into pieces of the same line; blank text gives no chunk", () => {
    const chunks = chunkText(`short\n${"y".repeat(2500)}\nend`, { maxChars: 1000 });
    expect(chunks.every((c) => c.text.length <= 1000)).toBe(true);
    expect(chunks.map((c) => [c.startLine, c.endLine])).toContainEqual([2, 2]);
    expect(chunks.at(-1)?.endLine).toBe(3);
    expect(chunkText("\n\n   \n")).toEqual([]);
  });
});

describe("whose library", () => {
  test("library: local written stays local whatever the logins; unset: the account's when one login has it, else local with documents", () => {
    expect(libraryChoice({ configured: "local", accountLibrary: true, localDocuments: false })).toBe("local");
    expect(libraryChoice({ configured: "lembas", accountLibrary: false, localDocuments: true })).toBe("lembas");
    expect(libraryChoice({ configured: null, accountLibrary: true, localDocuments: true })).toBe("lembas");
    expect(libraryChoice({ configured: null, accountLibrary: false, localDocuments: true })).toBe("local");
    expect(libraryChoice({ configured: null, accountLibrary: false, localDocuments: false })).toBe("none");
  });
});

describe("search parts", () => {
  test("the matrix finds the k nearest rows, best first", () => {
    const b = new MatrixBuilder(1);
    const rows = [[1, 0], [0, 1], [0.8, 0.6], [-1, 0]];
    rows.forEach((r, i) => {
      const v = normalised(r);
      b.add(10 + i, new Uint8Array(v.buffer));
    });
    const m = b.build();
    expect(m.rows).toBe(4);
    const top = m.top(normalised([1, 0.1]), 2);
    expect(top.map((t) => t.id)).toEqual([10, 12]);
    expect(m.top(normalised([1, 0]), 10)).toHaveLength(4);
  });

  test("reciprocal rank fusion ranks what both rankings hold first; a query's FTS5 syntax is quoted", () => {
    const fused = fuse([[{ id: 1 }, { id: 2 }, { id: 3 }], [{ id: 3 }, { id: 4 }]], 3);
    expect(fused.map((f) => f.id)).toEqual([3, 1, 2]);
    expect(matchExpression('foo* "bar" OR NEAR(')).toBe('"foo" OR "bar" OR "or" OR "near"');
    expect(matchExpression("  ?! ")).toBeNull();
  });

  test("Retry-After in seconds or as a date", () => {
    expect(retryAfterMs("2")).toBe(2000);
    expect(retryAfterMs(null)).toBe(1000);
    expect(retryAfterMs(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
  });
});

describe("library tool", () => {
  const backend = (search: LibraryBackend["search"]): LibraryBackend => ({ kind: "local", available: () => true, search });

  test("without a library it says so, as a tool error", async () => {
    const { ctx } = makeContext();
    const r = await libraryTool.execute({ query: "x" }, ctx);
    expect(r).toMatchObject({ isError: true, output: "No library is configured for this session." });
  });

  test("a backend that fails is a tool error with its sentence; passages inside the project are cited relative to it", async () => {
    const { ctx } = makeContext();
    ctx.library = backend(async () => {
      throw new Error("the embedding server at http://x/v1 could not be reached");
    });
    expect(await libraryTool.execute({ query: "x" }, ctx)).toMatchObject({ isError: true, output: "The library could not be searched: the embedding server at http://x/v1 could not be reached" });
    ctx.library = backend(async (_q, limit) => [
      { path: `${ctx.root}/a/b.md`, startLine: 3, endLine: 9, text: "inside", score: 0.5 },
      { path: "/elsewhere/c.txt", startLine: 1, endLine: 2, text: "outside", score: 0.25 },
    ].slice(0, limit));
    const r = await libraryTool.execute({ query: "x", limit: 2 }, ctx);
    expect(r.output).toContain("[1] a/b.md:3-9 (score 0.500)\ninside");
    expect(r.output).toContain("[2] /elsewhere/c.txt:1-2");
    expect(r.meta).toMatchObject({ count: 2, sources: ["a/b.md:3-9", "/elsewhere/c.txt:1-2"] });
  });
});
