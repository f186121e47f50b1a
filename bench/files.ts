// The @-file picker's engine beside ripgrep and fuzzysort 4, on a generated tree of 100,000 files
// (plus ignored node_modules and build output) and on a list of 1,000,000 paths (matching only).
// Prints one JSON line: cold index against `rg --files`; for 8 rotating queries (so that no cache
// helps) the sum of their medians against fuzzysort's prepared snapshot; the worst keystroke while
// each query is typed character by character; and the goals.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fuzzysort from "fuzzysort";
import { openFileIndex, refreshFileIndex, searchFiles } from "../src/project/files.ts";
import { rank } from "../src/project/fuzzy.ts";
import { defaultLister } from "../src/project/list-files.ts";
import { prepare } from "../src/project/prepared.ts";
import { openDb } from "../src/store/db.ts";
import { GITIGNORE, generatePaths, ignoredPaths, writeTree } from "./files-tree.ts";

const FILES = 100_000;
const IGNORED = 8_000;
const BIG = 1_000_000;
const LIMIT = 50;
// None is a prefix of the next, so typing one does not narrow from the one before.
const QUERIES = ["button", "usrsvc", "index.ts", "comp/hdr", "readme", "cfgldr", "ParserTest", "qry"];
const GOALS = { worst_keystroke_ms: 16, sum_of_medians_vs_fuzzysort: 1, cold_vs_rg: 1.5 };

type Matcher = (query: string) => unknown;

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? NaN;
};
const round = (n: number): number => Math.round(n * 100) / 100;

function time(run: () => unknown): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

async function timeAsync(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/** The medians of each query over `rounds` rounds of all the queries in turn. */
function rotate(match: Matcher, rounds: number): number[] {
  const times = QUERIES.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) QUERIES.forEach((query, i) => times[i]?.push(time(() => match(query))));
  return times.map(median);
}

/** Types each query a character at a time, `reps` times: the slowest keystroke's median and the slowest one seen. */
function typeQueries(match: Matcher, reps: number): { worst: number; max: number } {
  const times = new Map<string, number[]>();
  for (let r = 0; r < reps; r++) {
    for (const query of QUERIES) {
      for (let n = 1; n <= query.length; n++) {
        const typed = query.slice(0, n);
        const list = times.get(typed) ?? [];
        list.push(time(() => match(typed)));
        times.set(typed, list);
      }
    }
  }
  const all = [...times.values()];
  return { worst: Math.max(...all.map(median)), max: Math.max(...all.flat()) };
}

/** Ours beside fuzzysort (its default threshold and with threshold 0, any match) on one list. */
function compare(paths: string[], dirs: Uint8Array, ours: Matcher, rounds: number, reps: number, fsReps: number) {
  const fsPrepare = time(() => fuzzysort.go("zq", fuzzysort.snapshot(paths), { limit: LIMIT }));
  const snapshot = fuzzysort.snapshot(paths);
  fuzzysort.go("zq", snapshot, { limit: LIMIT });
  const fsDefault: Matcher = (q) => fuzzysort.go(q, snapshot, { limit: LIMIT });
  const fsAny: Matcher = (q) => fuzzysort.go(q, snapshot, { limit: LIMIT, threshold: 0 });
  rotate(ours, 2);
  rotate(fsDefault, 1);
  const oursMedians = rotate(ours, rounds);
  const fsMedians = rotate(fsDefault, rounds);
  const fsAnyMedians = rotate(fsAny, rounds);
  const sum = (xs: number[]) => round(xs.reduce((a, b) => a + b, 0));
  const typed = typeQueries(ours, reps);
  const fsTyped = typeQueries(fsDefault, fsReps);
  return {
    entries: paths.length,
    directories: dirs.reduce((a, b) => a + b, 0),
    fuzzysort_prepare_ms: round(fsPrepare),
    sum_of_medians_ms: sum(oursMedians),
    fuzzysort_sum_of_medians_ms: sum(fsMedians),
    fuzzysort_any_match_sum_of_medians_ms: sum(fsAnyMedians),
    worst_keystroke_ms: round(typed.worst),
    slowest_keystroke_seen_ms: round(typed.max),
    fuzzysort_worst_keystroke_ms: round(fsTyped.worst),
    medians_ms: Object.fromEntries(QUERIES.map((q, i) => [q, [round(oursMedians[i] ?? NaN), round(fsMedians[i] ?? NaN)]])),
  };
}

function withDirectories(files: string[]): { paths: string[]; dirs: Uint8Array } {
  const seen = new Set<string>();
  const dirList: string[] = [];
  for (const file of files) {
    for (let cut = file.lastIndexOf("/"); cut > 0; cut = file.lastIndexOf("/", cut - 1)) {
      const dir = file.slice(0, cut);
      if (seen.has(dir)) break;
      seen.add(dir);
      dirList.push(dir);
    }
  }
  const dirs = new Uint8Array(files.length + dirList.length);
  dirs.fill(1, files.length);
  return { paths: [...files, ...dirList], dirs };
}

async function coldIndex(root: string, work: string, runs: number) {
  const rg = defaultLister().rg;
  if (!rg) throw new Error("the benchmark compares with ripgrep: put rg on PATH");
  const rgArgs = ["--files", "--no-config", "--hidden", "--no-require-git", "--null", "--path-separator", "/", "--glob", "!.git"];
  const rgTimes: number[] = [];
  const ready: number[] = [];
  const persisted: number[] = [];
  const listRg = async () => {
    const proc = Bun.spawn([rg, ...rgArgs], { cwd: root, stdout: "pipe", stderr: "ignore" });
    await new Response(proc.stdout).arrayBuffer();
    await proc.exited;
  };
  await listRg();
  for (let run = 0; run < runs; run++) {
    rgTimes.push(await timeAsync(listRg));
    const db = openDb(join(work, `cold-${run}.db`));
    const start = performance.now();
    const index = openFileIndex(db, root);
    const result = await refreshFileIndex(index, { force: true });
    ready.push(performance.now() - start);
    await result.saved;
    persisted.push(performance.now() - start);
    db.close();
  }
  const dbFile = join(work, "cold-0.db");
  let entries = 0;
  const warm = time(() => {
    const db = openDb(dbFile);
    const index = openFileIndex(db, root);
    entries = index.entries.size;
    searchFiles(index, { query: "a", limit: LIMIT });
    db.close();
  });
  return {
    rg_ms: round(median(rgTimes)),
    ready_ms: round(median(ready)),
    persisted_ms: round(median(persisted)),
    ratio: round(median(ready) / median(rgTimes)),
    persisted_ratio: round(median(persisted) / median(rgTimes)),
    warm_open_and_first_query_ms: round(warm),
    entries,
  };
}

const work = mkdtempSync(join(tmpdir(), "lembas-bench-files-"));
try {
  const root = join(work, "project");
  mkdirSync(join(root, ".git"), { recursive: true });
  writeFileSync(join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(root, ".gitignore"), GITIGNORE);
  const files = generatePaths(FILES);
  writeTree(root, files);
  writeTree(root, ignoredPaths(IGNORED));

  const cold = await coldIndex(root, work, 5);

  const db = openDb(join(work, "match.db"));
  const index = openFileIndex(db, root);
  await refreshFileIndex(index, { force: true });
  const listed = index.prepared;
  if (!listed) throw new Error("nothing was indexed");
  const small = compare([...listed.paths], listed.dirs, (query) => searchFiles(index, { query, limit: LIMIT }), 9, 5, 3);
  db.close();

  const big = withDirectories(generatePaths(BIG, 3));
  let prepared = prepare(big.paths, big.dirs);
  const bigPrepare = time(() => {
    prepared = prepare(big.paths, big.dirs);
  });
  const large = { prepare_ms: round(bigPrepare), ...compare(big.paths, big.dirs, (query) => rank(prepared, query, { limit: LIMIT }), 5, 3, 1) };

  const fsBest = Math.min(small.fuzzysort_sum_of_medians_ms, small.fuzzysort_any_match_sum_of_medians_ms);
  console.log(
    JSON.stringify({
      bench: "files",
      tree: { files: FILES, ignored_files: IGNORED, listed_entries: cold.entries },
      cold_index: cold,
      match_100k: small,
      match_1m: large,
      limit: LIMIT,
      queries: QUERIES,
      goals: GOALS,
      met: {
        worst_keystroke: small.worst_keystroke_ms < GOALS.worst_keystroke_ms,
        sum_of_medians: small.sum_of_medians_ms <= fsBest,
        cold_index: cold.ratio <= GOALS.cold_vs_rg,
      },
    }),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
