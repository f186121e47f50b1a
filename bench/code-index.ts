// The code index (code_search): a generated project of 20,000 TypeScript files indexed through the
// real path (the file index's listing by ripgrep, each file read, chunked along its functions,
// embedded over HTTP by bench/embed-server.ts in another process, written to SQLite), as chunks/s
// wall-clock and with the embedding requests' own time (send → answer read) subtracted; then the
// refresh after 10 files change (listing, a stat per file, the 10 read and embedded again: the
// goal is under a second); then search latency: the code index's hybrid search (CodeSearcher:
// vectors + FTS5 + fusion + passages read, the query's vector made beforehand) against the
// library's own (LocalLibrary.searchVector) over the same chunks and vectors copied into the
// library's tables, medians over rotating queries. `--files N` for another size.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CodeSearcher } from "../src/code-index/code-searcher.ts";
import { CodeIndex } from "../src/code-index/project-index.ts";
import { Config } from "../src/config/schema.ts";
import { embeddingTarget } from "../src/library/embedding-target.ts";
import { normalised } from "../src/library/embeddings.ts";
import { LocalLibrary } from "../src/library/local.ts";
import { protectedPaths } from "../src/project/protected.ts";
import { codeChunkCount } from "../src/store/code-files.ts";
import { openDb } from "../src/store/db.ts";
import { replaceDocument } from "../src/store/library.ts";
import { bagOfWords } from "../test/support/embeddings.ts";
import { LIMITS } from "./goals.ts";

const DIM = Number(process.env.LEMBAS_BENCH_DIM ?? 384);
const at = process.argv.indexOf("--files");
const FILES = at === -1 ? 20_000 : Number(process.argv[at + 1]);
const CHANGED = 10;
const QUERIES = 40;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
const round = (n: number, places = 3): number => Math.round(n * 10 ** places) / 10 ** places;

let seed = 7;
const random = () => ((seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32);
const SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qu", "di", "fo", "gu", "he", "ji"];
const VOCAB = Array.from({ length: 20_000 }, (_, i) => {
  let w = "";
  for (let n = i + 1; n > 0; n = Math.floor(n / 16)) w += SYLLABLES[n % 16];
  return w;
});
const word = () => VOCAB[Math.floor(VOCAB.length * random() ** 2.5)] as string;

/** A function of about 300 characters: a doc comment, a signature and a few statements of pseudo-words. */
function fn(name: string): string {
  const body = Array.from({ length: 4 }, () => `  const ${word()} = ${word()}(${word()}, ${word()});`).join("\n");
  return `/** ${word()} ${word()} ${word()} ${word()}. */\nexport function ${name}(${word()}: string): number {\n${body}\n  return ${word()}.length;\n}\n`;
}

function file(n: number, extra = ""): string {
  return `import { ${word()} } from "./${word()}";\n\n${fn(`f${n}a`)}\n${fn(`f${n}b`)}${extra}`;
}

const pathOf = (n: number) => `src/m${String(Math.floor(n / 100)).padStart(3, "0")}/f${String(n).padStart(5, "0")}.ts`;

async function main(): Promise<void> {
  const server = Bun.spawn([process.execPath, join(import.meta.dir, "embed-server.ts")], { env: { ...process.env, LEMBAS_BENCH_DIM: String(DIM) }, stdout: "pipe", stderr: "inherit" });
  const reader = server.stdout.getReader();
  const port = Number(new TextDecoder().decode((await reader.read()).value).trim());
  const dir = mkdtempSync(join(tmpdir(), "lembas-bench-code-index-"));
  const root = join(dir, "project");
  const out: Record<string, unknown> = { bench: "code-index", dimension: DIM, files: FILES };
  try {
    for (let n = 0; n < FILES; n++) {
      const path = join(root, pathOf(n));
      if (n % 100 === 0) mkdirSync(join(path, ".."), { recursive: true });
      writeFileSync(path, file(n));
    }
    const db = openDb(join(dir, "lembas.db"));
    const config = Config.parse({ connections: { bench: { base_url: `http://127.0.0.1:${port}/v1` } }, embedding: "bench/bow" });
    const target = embeddingTarget(config, [], {});
    if (!target.ok) throw new Error(target.error);
    const timing = { serverMs: 0 };
    const index = new CodeIndex({ db, root, target: () => target, protectedPaths: protectedPaths([], []), embed: { timing } });

    let started = performance.now();
    await index.settled();
    const wallMs = performance.now() - started;
    const chunks = codeChunkCount(db, root);
    const progress = index.progress();
    if (progress?.problem) throw new Error(progress.problem);

    // What listing the tree alone costs here and now (the machine may be loaded): the refresh's reference.
    const rgStarted = performance.now();
    Bun.spawnSync(["rg", "--files", "--no-config", "--hidden", "--no-require-git"], { cwd: root, stdout: "ignore" });
    const rgMs = performance.now() - rgStarted;
    for (let n = 0; n < CHANGED; n++) writeFileSync(join(root, pathOf((n * 997) % FILES)), file((n * 997) % FILES, `\n${fn(`g${n}`)}`));
    const serverBefore = timing.serverMs;
    started = performance.now();
    await index.settled();
    const refreshMs = performance.now() - started;
    const refreshServerMs = timing.serverMs - serverBefore;
    const refreshed = index.progress();

    // The library's tables get the same chunks with the same vectors: its search over as many.
    const rows = db.query<{ path: string; start: number; end: number; text: string; vector: Uint8Array }, [string]>("SELECT f.path, c.start_line AS start, c.end_line AS end, c.text, c.vector FROM code_chunks c JOIN code_files f ON f.id = c.file_id WHERE c.root = ? ORDER BY f.path, c.id").all(root);
    const byPath = new Map<string, typeof rows>();
    for (const r of rows) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
    for (const [path, mine] of byPath) {
      const doc = { path: join(root, path), hash: path, mtime: 0, size: 0, model: "bench/bow", dimension: DIM };
      replaceDocument(db, doc, mine.map((r) => ({ startLine: r.start, endLine: r.end, text: r.text, vector: new Float32Array(r.vector.slice().buffer) })));
    }
    const library = new LocalLibrary(db, () => target);
    const searcher = new CodeSearcher(db, root);
    const queries = Array.from({ length: QUERIES }, () => {
      const text = `${word()} ${word()} ${VOCAB[Math.floor(random() * 2000)]} ${word()}`;
      return { text, vector: normalised(bagOfWords(text, DIM)) };
    });
    // Each holds its vectors in memory after its first search: that load is left out of both.
    library.nearest(queries[0]?.vector ?? new Float32Array(DIM), 1);
    searcher.search("warm", queries[0]?.vector ?? null, "bench/bow", 1);
    const code: number[] = [];
    const lib: number[] = [];
    for (let r = 0; r < 3; r++) {
      for (const q of queries) {
        let t = performance.now();
        searcher.search(q.text, q.vector, "bench/bow", 10);
        code.push(performance.now() - t);
        t = performance.now();
        library.searchVector(q.text, q.vector, 10);
        lib.push(performance.now() - t);
      }
    }
    db.close();
    Object.assign(out, {
      chunks,
      index_wall_ms: Math.round(wallMs),
      embedding_server_ms: Math.round(timing.serverMs - refreshServerMs),
      index_chunks_per_s_wall: Math.round(chunks / (wallMs / 1000)),
      index_chunks_per_s_own: Math.round(chunks / ((wallMs - (timing.serverMs - refreshServerMs)) / 1000)),
      peak_held_chunks: progress?.peakHeld ?? null,
      refresh_10_files_ms: Math.round(refreshMs),
      refresh_embedding_server_ms: Math.round(refreshServerMs),
      rg_files_ms: Math.round(rgMs),
      refresh_vs_rg_files: round(refreshMs / rgMs, 2),
      refresh_listing_ms: Math.round(refreshed?.listMs ?? NaN),
      refresh_stat_ms: Math.round(refreshed?.compareMs ?? NaN),
      code_search_ms: round(median(code)),
      library_search_ms: round(median(lib)),
      search_vs_library: round(median(code) / median(lib), 2),
    });
  } finally {
    server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
  out.goals = LIMITS.codeIndex;
  console.log(JSON.stringify(out));
}

await main();
