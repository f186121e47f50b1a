import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Config } from "../../src/config/schema.ts";
import { embeddingTarget, type EmbeddingTarget } from "../../src/library/embedding-target.ts";
import { addFiles, QUIET } from "../../src/library/indexer.ts";
import { LocalLibrary } from "../../src/library/local.ts";
import { refreshLibrary } from "../../src/library/refresh.ts";
import { type Db, openDb } from "../../src/store/db.ts";
import { documentChunks, getDocument, listDocuments } from "../../src/store/library.ts";
import { libraryTool } from "../../src/tools/library.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { makeContext } from "../tools/context.ts";

let dir: string;
let model: ScriptedModel;
let target: EmbeddingTarget;
let db: Db;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "lembas-refresh-"));
  model = await startModel();
  const made = embeddingTarget(Config.parse({ connections: { test: { base_url: model.url } }, embedding: "test/e" }), [], {});
  if (!made.ok) throw new Error(made.error);
  target = made.value;
  db = openDb(join(dir, "lembas.db"));
});
afterEach(async () => {
  db.close();
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

async function add(files: Record<string, string>): Promise<string[]> {
  const paths = Object.entries(files).map(([name, text]) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  });
  const summary = await addFiles({ db, target, reporter: QUIET }, paths, new Set(paths));
  expect(summary.stopped).toBeNull();
  return paths;
}

/** Rewrites a file with other content (and another size, so that the change is seen even within the same millisecond). */
function change(path: string, text: string): void {
  writeFileSync(path, text);
}

const texts = (path: string) => documentChunks(db, getDocument(db, path)?.id ?? -1).map((c) => c.text);

describe("the library keeps up with its files at a search", () => {
  test("a changed file is re-indexed and a deleted one dropped before the search answers; said", async () => {
    const [a, b] = await add({ "a.md": "apples and pears\n", "b.md": "bananas\n" });
    change(a as string, "submarine periscope depth gauge\n");
    unlinkSync(b as string);
    const library = new LocalLibrary(db, () => ({ ok: true, value: target }));
    const notes = await library.refresh(AbortSignal.timeout(5000));
    expect(notes).toEqual([`re-indexed 1 document that changed`, `took out 1 document whose file is gone (${b})`]);
    const found = await library.search("periscope", 5, AbortSignal.timeout(5000));
    expect(found.map((p) => p.text)).toEqual(["submarine periscope depth gauge"]);
    expect(listDocuments(db).map((d) => d.path)).toEqual([a as string]);
    // Up to date now: nothing more to do, nothing embedded but the query.
    const before = model.embeddingRequests.length;
    expect(await library.refresh(AbortSignal.timeout(5000))).toEqual([]);
    expect(model.embeddingRequests.length).toBe(before);
  });

  test("bounded: at most the budget's chunks a search, the rest said and done at the next", async () => {
    const paths = await add({ "a.md": "one\n", "b.md": "two\n", "c.md": "three\n" });
    for (const [i, p] of paths.entries()) change(p, `changed text number ${i} here\n`);
    const first = await refreshLibrary({ db, target, reporter: QUIET }, 2);
    expect(first[0]).toBe("re-indexed 2 documents that changed");
    expect(first[1]).toContain(`1 document changed (or of another embedding model) is not re-indexed yet (a search embeds at most 2 chunks first): the next searches go on, or lembas library add ${paths[2]} does it now`);
    expect(texts(paths[2] as string)).toEqual(["three"]);
    expect(await refreshLibrary({ db, target, reporter: QUIET }, 2)).toEqual(["re-indexed 1 document that changed"]);
    expect(texts(paths[2] as string)).toEqual(["changed text number 2 here"]);
  });

  test("the embedding server failing part way: each document as it was or done, never half; the search still answers", async () => {
    const [a, b] = await add({ "a.md": "apples\n", "b.md": "bananas\n" });
    change(a as string, "avocado toast\n");
    change(b as string, "blueberry muffin\n");
    model.setEmbeddings({ fail: { status: 500 }, after: 1 });
    const library = new LocalLibrary(db, () => ({ ok: true, value: target }));
    const notes = await library.refresh(AbortSignal.timeout(5000));
    expect(notes[0]).toBe("re-indexed 1 document that changed");
    expect(notes[1]).toContain("the library could not be brought up to date (the embedding server at");
    expect(texts(a as string)).toEqual(["avocado toast"]);
    expect(texts(b as string)).toEqual(["bananas"]);
    model.setEmbeddings({});
    expect((await library.search("avocado", 5, AbortSignal.timeout(5000)))[0]?.text).toBe("avocado toast");
  });

  test("the tool says what it brought up to date before the passages", async () => {
    const [a] = await add({ "a.md": "apples\n" });
    change(a as string, "submarine periscope\n");
    const { ctx } = makeContext();
    ctx.library = new LocalLibrary(db, () => ({ ok: true, value: target }));
    const r = await libraryTool.execute({ query: "periscope" }, ctx);
    expect(r.isError).toBeFalsy();
    expect(r.output).toStartWith("Library: re-indexed 1 document that changed.\n\n[1] ");
    expect(r.output).toContain("submarine periscope");
  });

  test("a touched file (same content) is not embedded again, only its time recorded", async () => {
    const [a] = await add({ "a.md": "apples\n" });
    const later = new Date(Date.now() + 60_000);
    (await import("node:fs")).utimesSync(a as string, later, later);
    const before = model.embeddingRequests.length;
    expect(await refreshLibrary({ db, target, reporter: QUIET })).toEqual([]);
    expect(model.embeddingRequests.length).toBe(before);
    expect(await refreshLibrary({ db, target, reporter: QUIET })).toEqual([]);
  });

  test("part way through re-embedding for a new model of another dimension, a search compares the query with the new model's vectors only", async () => {
    model.setEmbeddings({ dimension: 16 });
    const old = embeddingTarget(Config.parse({ connections: { test: { base_url: model.url } }, embedding: "test/old" }), [], {});
    if (!old.ok) throw new Error(old.error);
    const paths = ["a.md", "b.md"].map((name, i) => {
      const path = join(dir, name);
      writeFileSync(path, i === 0 ? "kiwi mango\n" : "submarine periscope\n");
      return path;
    });
    await addFiles({ db, target: old.value, reporter: QUIET }, paths, new Set(paths));
    model.setEmbeddings({});
    const library = new LocalLibrary(db, () => ({ ok: true, value: target }));
    const notes = await refreshLibrary({ db, target, reporter: QUIET }, 1);
    expect(notes[0]).toBe("the embedding model changed from test/old to test/e: re-embedded 1 document");
    expect(listDocuments(db).map((d) => d.dimension)).toEqual([64, 16]);
    // "kiwi" is in a.md, now of the new model; the vector ranking must hold it (a 16-dimension matrix would not).
    const found = await library.search("kiwi", 5, AbortSignal.timeout(5000));
    expect(found[0]?.path).toBe(paths[0] as string);
    expect(library.nearest(Float32Array.from((await import("../support/embeddings.ts")).bagOfWords("kiwi mango")), 5).length).toBe(1);
  });
});
