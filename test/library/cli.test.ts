import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, realpathSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type LibraryBox, libraryBox, setEmbedding, unreadableFile } from "./support.ts";

let box: LibraryBox;
beforeEach(async () => {
  box = await libraryBox();
});
afterEach(() => box.close());

const GUIDE = [
  "# Guide",
  "",
  "Intro words about nothing in particular.",
  "",
  "## Tokens",
  "",
  "The refresh token rotates every hour; the daemon renews it before expiry.",
  "",
  "## Colours",
  "",
  "Themes pick a palette of dark or light colours for the terminal.",
].join("\n");

function docs(): { path: string; model: string; chunks: number }[] {
  const db = new Database(join(box.stateDir, "lembas.db"), { readonly: true });
  try {
    return db.query<{ path: string; model: string; chunks: number }, []>("SELECT path, model, chunks FROM library_documents ORDER BY path").all();
  } finally {
    db.close();
  }
}

function chunkRows(): number {
  const db = new Database(join(box.stateDir, "lembas.db"), { readonly: true });
  try {
    const fts = db.query<{ n: number }, []>("SELECT count(*) AS n FROM library_fts").get()?.n ?? 0;
    const chunks = db.query<{ n: number }, []>("SELECT count(*) AS n FROM library_chunks").get()?.n ?? 0;
    expect(fts).toBe(chunks);
    return chunks;
  } finally {
    db.close();
  }
}

function project(files: Record<string, string | Uint8Array>): string {
  const dir = realpathSync(box.project);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

describe("lembas library", () => {
  test("add a directory (gitignore honoured, binaries counted), list, search finds the passage sharing the query's words, remove", async () => {
    const dir = project({
      "docs/guide.md": GUIDE,
      "src/main.ts": "export function main() {\n  return 42;\n}\n",
      "docs/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]),
      "build/out.txt": "generated refresh token text\n",
      ".gitignore": "build/\n",
    });
    const added = await box.lembas(["library", "add", "docs", "src"]);
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    expect(added.stdout).toBe("added 2 files (4 chunks); skipped 1 file that is not text\n");
    expect(docs().map((d) => d.path)).toEqual([join(dir, "docs/guide.md"), join(dir, "src/main.ts")]);
    expect(box.model.embeddingRequests.every((r) => r.model === "embed-a")).toBe(true);

    const listed = await box.lembas(["library", "list"]);
    expect(listed.stdout).toContain(`${join(dir, "docs/guide.md")}  3 chunks  test/embed-a`);

    const found = await box.lembas(["library", "search", "when", "does", "the", "refresh", "token", "rotate", "--json"]);
    expect(found.code).toBe(0);
    const { passages } = JSON.parse(found.stdout) as { passages: { path: string; startLine: number; endLine: number; text: string }[] };
    expect(passages[0]).toMatchObject({ path: join(dir, "docs/guide.md"), startLine: 5, endLine: 8 });
    expect(passages[0]?.text).toContain("refresh token rotates");

    const text = await box.lembas(["library", "search", "palette colours", "--limit", "1"]);
    expect(text.stdout).toStartWith(`${join(dir, "docs/guide.md")}:9-11  (score `);
    expect(text.stdout.trim().split("\n").filter((l) => l.includes(":") && l.includes("score"))).toHaveLength(1);

    const removed = await box.lembas(["library", "remove", "docs"]);
    expect(removed.stdout).toBe("removed 1 file\n");
    expect(docs().map((d) => d.path)).toEqual([join(dir, "src/main.ts")]);
    expect(chunkRows()).toBe(1);
    const again = await box.lembas(["library", "remove", "docs/guide.md"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("not in the library: docs/guide.md");
  });

  test("the same file twice is one copy; added again unchanged it is not embedded again; changed, it is re-embedded", async () => {
    const dir = project({ "notes.md": "alpha beta gamma\n" });
    const first = await box.lembas(["library", "add", "notes.md", "./notes.md", join(dir, "notes.md")]);
    expect(first.stdout).toBe("added 1 file (1 chunk)\n");
    const again = await box.lembas(["library", "add", "notes.md"]);
    expect(again.stdout).toBe("added 0 files (0 chunks); 1 file already there unchanged\n");
    expect(box.model.embeddingRequests).toHaveLength(1);
    expect(docs()).toHaveLength(1);

    writeFileSync(join(dir, "notes.md"), "delta epsilon\n\nzeta eta theta\n");
    const listed = await box.lembas(["library", "list"]);
    expect(listed.stdout).toContain("changed since: the next search re-indexes it (or lembas library add it again)");
    const changed = await box.lembas(["library", "add", "notes.md"]);
    expect(changed.stdout).toBe("added 0 files; re-embedded 1 file that changed (1 chunk)\n");
    expect(docs()).toHaveLength(1);
    const found = await box.lembas(["library", "search", "epsilon", "--json"]);
    expect(JSON.parse(found.stdout).passages[0].text).toContain("zeta eta theta");
    const old = await box.lembas(["library", "search", "gamma", "--json"]);
    expect(JSON.stringify(JSON.parse(old.stdout))).not.toContain("alpha");
  });

  test("a search keeps up: a file changed since it was added is re-indexed first, a deleted one dropped, said on stderr", async () => {
    const dir = project({ "a.md": "apples and pears\n", "b.md": "bananas\n" });
    await box.lembas(["library", "add", "a.md", "b.md"]);
    writeFileSync(join(dir, "a.md"), "submarine periscope depth\n");
    unlinkSync(join(dir, "b.md"));
    const found = await box.lembas(["library", "search", "periscope", "--json"]);
    expect(found.code).toBe(0);
    expect(found.stderr).toContain("lembas: re-indexed 1 document that changed\n");
    expect(found.stderr).toContain(`lembas: took out 1 document whose file is gone (${join(dir, "b.md")})`);
    expect(JSON.parse(found.stdout).passages.map((p: { text: string }) => p.text)).toEqual(["submarine periscope depth"]);
    expect(docs().map((d) => d.path)).toEqual([join(dir, "a.md")]);
    expect(chunkRows()).toBe(1);
  });

  test("the embedding model changed between runs: the whole library is re-embedded, said", async () => {
    project({ "a.md": "first document words\n", "b.md": "second document words\n" });
    await box.lembas(["library", "add", "a.md", "b.md"]);
    setEmbedding(box, "test/embed-b");
    const found = await box.lembas(["library", "search", "second", "--json"]);
    expect(found.code).toBe(0);
    expect(found.stderr).toContain("the embedding model changed from test/embed-a to test/embed-b: re-embedded 2 documents");
    expect(JSON.parse(found.stdout).passages[0].text).toBe("second document words");
    expect(docs().map((d) => d.model)).toEqual(["test/embed-b", "test/embed-b"]);
    expect(box.model.embeddingRequests.at(-1)?.model).toBe("embed-b");
  });
});

describe("lembas library: bad input and faults, each a sentence, nothing half-indexed", () => {
  test("a file that is not text, named: a sentence, nothing added", async () => {
    project({ "data.bin": new Uint8Array([1, 2, 0, 3, 4]), "latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9]) });
    const r = await box.lembas(["library", "add", "data.bin", "latin1.txt"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("data.bin is not text (a binary file): skipped");
    expect(r.stderr).toContain("latin1.txt is not UTF-8 text: skipped");
    expect(docs()).toEqual([]);
    expect(box.model.embeddingRequests).toHaveLength(0);
  });

  test("a 100 MB file is refused unread, with a sentence; the rest is added", async () => {
    const dir = project({ "small.md": "small words\n" });
    writeFileSync(join(dir, "huge.log"), "");
    truncateSync(join(dir, "huge.log"), 100 * 1024 * 1024);
    const r = await box.lembas(["library", "add", "."]);
    expect(r.stderr).toContain(`${join(dir, "huge.log")} is 100 MB, over the library's 10 MB a file: split it`);
    expect(r.code).toBe(1);
    expect(docs().map((d) => d.path)).toEqual([join(dir, "small.md")]);
  });

  test("the embedding endpoint down: a sentence, nothing added", async () => {
    project({ "a.md": "words\n" });
    await box.model.close();
    const r = await box.lembas(["library", "add", "a.md"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the embedding server at ${box.model.url} could not be reached`);
    expect(r.stderr).toContain("is it running?");
    expect(docs()).toEqual([]);
  });

  test("429 with Retry-After is waited out; a server that keeps refusing is a sentence, nothing half-indexed", async () => {
    project({ "a.md": "apple words\n", "b.md": "banana words\n" });
    box.model.setEmbeddings({ fail: { status: 429, retryAfter: 1 }, times: 1 });
    const started = Date.now();
    const ok = await box.lembas(["library", "add", "a.md"]);
    expect(ok.stdout).toBe("added 1 file (1 chunk)\n");
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(box.model.embeddingRequests).toHaveLength(2);

    box.model.setEmbeddings({ fail: { status: 429, retryAfter: 0 } });
    const refused = await box.lembas(["library", "add", "b.md"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("kept refusing with 429 (rate limited) after 4 tries: try again later");
    expect(docs().map((d) => d.path.split("/").at(-1))).toEqual(["a.md"]);
    expect(chunkRows()).toBe(1);
  });

  test("a 500 part way through a file's batches: nothing of that file is written", async () => {
    const big = Array.from({ length: 400 }, (_, i) => `line ${i} ${"word ".repeat(60)}`).join("\n");
    project({ "big.txt": big });
    box.model.setEmbeddings({ fail: { status: 500 }, times: 1, after: 1 });
    const r = await box.lembas(["library", "add", "big.txt"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("answered 500");
    expect(box.model.embeddingRequests).toHaveLength(2);
    expect(docs()).toEqual([]);
    expect(chunkRows()).toBe(0);
    // With nothing written, the next run embeds the whole file.
    const again = await box.lembas(["library", "add", "big.txt"]);
    expect(again.code).toBe(0);
    expect(docs()).toHaveLength(1);
    expect(chunkRows()).toBeGreaterThan(64);
  });

  test("vectors of the wrong dimension are refused: a sentence, the library as it was", async () => {
    project({ "a.md": "apple\n", "b.md": "banana\n" });
    await box.lembas(["library", "add", "a.md"]);
    box.model.setEmbeddings({ dimension: 32 });
    const r = await box.lembas(["library", "add", "b.md"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("returned vectors of 32 dimensions where 64 were expected (the library's): refused");
    expect(r.stderr).toContain("the files before it were added whole, the rest not at all");
    expect(docs().map((d) => d.path.split("/").at(-1))).toEqual(["a.md"]);
    expect(chunkRows()).toBe(1);
  });

  test("a PATH the person cannot read, or that is not there: a sentence each, the rest added", async () => {
    const dir = project({ "ok.md": "fine words\n" });
    const secret = unreadableFile(dir);
    if (!secret) throw new Error("no unreadable file could be made on this machine");
    const r = await box.lembas(["library", "add", secret, "missing.md", "ok.md"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${secret} cannot be read: permission denied`);
    expect(r.stderr).toContain("missing.md does not exist");
    expect(docs().map((d) => d.path)).toEqual([join(dir, "ok.md")]);
  });

  test("an empty query is refused with a sentence, not answered with any passage", async () => {
    project({ "a.md": "alpha words\n" });
    await box.lembas(["library", "add", "a.md"]);
    for (const query of [[""], ["  "]]) {
      const r = await box.lembas(["library", "search", ...query]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("say what to look for");
    }
  });

  test("no embedding model set: a sentence saying how to set one", async () => {
    writeFileSync(join(box.configDir, "config.yaml"), `connections:\n  test:\n    base_url: ${box.model.url}\n`);
    project({ "a.md": "words\n" });
    const r = await box.lembas(["library", "add", "a.md"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no embedding model is set: set embedding: in config.yaml");
  });
});
