// The library: indexing throughput and search latency over 10,000 and 100,000 chunks, beside the
// floor of a brute-force search: a bare Float32Array cosine scan (dot products of normalised
// vectors, the best 50 kept) over the same vectors already in memory, in the same run.
// Indexing runs the real path (files read, chunked, embedded over HTTP by bench/embed-server.ts in
// another process, written to SQLite); chunks/s is given wall-clock and with the embedding
// requests' own time (send → answer read) subtracted. Search: each query's vector is made here
// beforehand (the same function the server uses), so the figures are the search's own; vector_ms
// is LocalLibrary.nearest (the in-memory matrix), hybrid_ms the whole searchVector (vector + FTS5
// bm25 + fusion + the passages read), blob_scan_ms a scan over the vectors read from SQLite per
// query (what the in-memory matrix avoids). Medians over rotating queries. The line's top-level
// vector_vs_floor and hybrid_vs_floor are the worst of the sizes, what the goals hold (goals.ts).
// `--quick`: 10,000 chunks only (both sizes take several minutes on a loaded machine, and 1 GB).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Config } from "../src/config/schema.ts";
import { embeddingTarget } from "../src/library/embedding-target.ts";
import { normalised } from "../src/library/embeddings.ts";
import { addFiles, QUIET } from "../src/library/indexer.ts";
import { LocalLibrary } from "../src/library/local.ts";
import { openDb } from "../src/store/db.ts";
import { chunkCount, readVectors } from "../src/store/library.ts";
import { bagOfWords } from "../test/support/embeddings.ts";
import { LIMITS } from "./goals.ts";

const DIM = Number(process.env.LEMBAS_BENCH_DIM ?? 384);
const CHUNKS_PER_FILE = 100;
/** --quick: 10,000 chunks only (the whole run at both sizes takes several minutes, and 1 GB). */
const QUICK = process.argv.includes("--quick");
const SIZES = QUICK ? [10_000] : [10_000, 100_000];
const K = 50;
const QUERIES = 40;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
const round = (n: number, places = 3): number => Math.round(n * 10 ** places) / 10 ** places;

// A vocabulary of pseudo-words, drawn with a skew (some words common, most rare), as text is.
let seed = 42;
const random = () => ((seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32);
const SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qu", "di", "fo", "gu", "he", "ji"];
const VOCAB = Array.from({ length: 20_000 }, (_, i) => {
  let w = "";
  for (let n = i + 1; n > 0; n = Math.floor(n / 16)) w += SYLLABLES[n % 16];
  return w;
});
const word = () => VOCAB[Math.floor(VOCAB.length * random() ** 2.5)] as string;
const line = (words: number) => Array.from({ length: words }, word).join(" ");

/** A markdown file of CHUNKS_PER_FILE sections (a heading each: one chunk each), about 600 characters a section. */
function writeFiles(dir: string, from: number, files: number): void {
  mkdirSync(dir, { recursive: true });
  for (let f = from; f < from + files; f++) {
    const sections: string[] = [];
    for (let s = 0; s < CHUNKS_PER_FILE; s++) sections.push(`## Section ${f}.${s}\n${line(12)}\n${line(12)}\n${line(12)}\n${line(12)}\n${line(12)}\n${line(12)}\n`);
    writeFileSync(join(dir, `doc-${String(f).padStart(5, "0")}.md`), sections.join("\n"));
  }
}

function floorTop(data: Float32Array, rows: number, query: Float32Array, k: number): number {
  const scores = new Float32Array(k).fill(-Infinity);
  let floor = -Infinity;
  for (let r = 0, base = 0; r < rows; r++, base += DIM) {
    let dot = 0;
    for (let j = 0; j < DIM; j++) dot += (data[base + j] as number) * (query[j] as number);
    if (dot <= floor) continue;
    let at = k - 1;
    while (at > 0 && (scores[at - 1] as number) < dot) {
      scores[at] = scores[at - 1] as number;
      at--;
    }
    scores[at] = dot;
    floor = scores[k - 1] as number;
  }
  return floor;
}

function blobScan(db: ReturnType<typeof openDb>, query: Float32Array): number {
  let best = -Infinity;
  readVectors(db, (_id, bytes) => {
    const v = new Float32Array(bytes.slice().buffer);
    let dot = 0;
    for (let j = 0; j < DIM; j++) dot += (v[j] as number) * (query[j] as number);
    if (dot > best) best = dot;
  });
  return best;
}

async function main(): Promise<void> {
  const server = Bun.spawn([process.execPath, join(import.meta.dir, "embed-server.ts")], { env: { ...process.env, LEMBAS_BENCH_DIM: String(DIM) }, stdout: "pipe", stderr: "inherit" });
  const reader = server.stdout.getReader();
  const port = Number(new TextDecoder().decode((await reader.read()).value).trim());
  const dir = mkdtempSync(join(tmpdir(), "lembas-bench-library-"));
  const out: Record<string, unknown> = { bench: "library", dimension: DIM, k: K, queries: QUERIES, sizes: SIZES };
  /** The worst ratio of each kind over the sizes measured: what the goals are held to. */
  const worst = { vector_vs_floor: 0, hybrid_vs_floor: 0 };
  try {
    const db = openDb(join(dir, "lembas.db"));
    const config = Config.parse({ connections: { bench: { base_url: `http://127.0.0.1:${port}/v1` } }, embedding: "bench/bow" });
    const target = embeddingTarget(config, [], {});
    if (!target.ok) throw new Error(target.error);
    const library = new LocalLibrary(db, () => target);
    let filesSoFar = 0;
    for (const size of SIZES) {
      const files = size / CHUNKS_PER_FILE - filesSoFar;
      const docs = join(dir, `docs-${size}`);
      writeFiles(docs, filesSoFar, files);
      const paths = Array.from({ length: files }, (_, i) => join(docs, `doc-${String(filesSoFar + i).padStart(5, "0")}.md`));
      filesSoFar += files;
      const timing = { serverMs: 0 };
      const started = performance.now();
      const summary = await addFiles({ db, target: target.value, reporter: QUIET, embed: { timing } }, paths, new Set());
      const wallMs = performance.now() - started;
      if (summary.stopped) throw new Error(summary.stopped);
      const total = chunkCount(db);
      if (total !== size) throw new Error(`expected ${size} chunks, have ${total}`);

      // The same vectors, as a bare Float32Array, for the floor.
      const floorData = new Float32Array(total * DIM);
      let row = 0;
      readVectors(db, (_id, bytes) => {
        new Uint8Array(floorData.buffer, row * DIM * 4, DIM * 4).set(bytes);
        row += 1;
      });
      const queries = Array.from({ length: QUERIES }, () => {
        const text = `${word()} ${word()} ${VOCAB[Math.floor(random() * 2000)]} ${word()}`;
        return { text, vector: normalised(bagOfWords(text, DIM)) };
      });
      const firstStart = performance.now();
      library.nearest(queries[0]?.vector ?? new Float32Array(DIM), K);
      const firstMs = performance.now() - firstStart;
      const floor: number[] = [];
      const vector: number[] = [];
      const hybrid: number[] = [];
      for (let round = 0; round < 3; round++) {
        for (const q of queries) {
          let t = performance.now();
          floorTop(floorData, total, q.vector, K);
          floor.push(performance.now() - t);
          t = performance.now();
          library.nearest(q.vector, K);
          vector.push(performance.now() - t);
          t = performance.now();
          library.searchVector(q.text, q.vector, 10);
          hybrid.push(performance.now() - t);
        }
      }
      const blob: number[] = [];
      for (const q of queries.slice(0, 5)) {
        const t = performance.now();
        blobScan(db, q.vector);
        blob.push(performance.now() - t);
      }
      const floorMs = median(floor);
      worst.vector_vs_floor = Math.max(worst.vector_vs_floor, round(median(vector) / floorMs, 2));
      worst.hybrid_vs_floor = Math.max(worst.hybrid_vs_floor, round(median(hybrid) / floorMs, 2));
      out[`chunks_${size}`] = {
        index_chunks_per_s_wall: Math.round(summary.chunks / (wallMs / 1000)),
        index_chunks_per_s_own: Math.round(summary.chunks / ((wallMs - timing.serverMs) / 1000)),
        embedding_server_ms: Math.round(timing.serverMs),
        index_wall_ms: Math.round(wallMs),
        first_search_loads_vectors_ms: round(firstMs, 1),
        floor_ms: round(floorMs),
        vector_ms: round(median(vector)),
        hybrid_ms: round(median(hybrid)),
        blob_scan_ms: round(median(blob)),
        vector_vs_floor: round(median(vector) / floorMs, 2),
        hybrid_vs_floor: round(median(hybrid) / floorMs, 2),
        blob_scan_vs_floor: round(median(blob) / floorMs, 2),
      };
    }
    db.close();
  } finally {
    server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
  Object.assign(out, worst);
  out.goals = LIMITS.library;
  console.log(JSON.stringify(out));
}

await main();
