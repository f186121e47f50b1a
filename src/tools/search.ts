import { stat } from "node:fs/promises";
import { walk } from "../project/ignore-walk.ts";
import { MAX_COLUMNS, scanLines } from "./line-scan.ts";
import { comparePaths } from "./paths.ts";
import { type PathGuard, rgExclusions } from "../project/protected.ts";

export type SearchMode = "content" | "files_with_matches" | "count";

/** One search, as both engines take it. */
export type SearchQuery = {
  pattern: string;
  /** Absolute: the directory or file to search. */
  base: string;
  /** The project root, whose ignore files above `base` apply too. */
  root: string;
  /** A glob over paths relative to `base` (a name-only glob matches at any depth); `!glob` excludes. */
  glob?: string;
  ignoreCase: boolean;
  mode: SearchMode;
  /** Lines of context around each match (content mode). */
  context: number;
  /** Content mode stops once more than this many matching lines were found. */
  limit: number;
  /** Files left out of the search entirely, whatever the glob says: neither matched nor counted. */
  guard?: PathGuard;
  signal?: AbortSignal;
};

/** A line found: `text` is its start only when `cut` (ripgrep says a line was cut, not its length). */
export type HitLine = { n: number; text: string; match: boolean; cut?: { length?: number } };
/** A file with matches: for content mode its lines (matches and context), for count mode the count. */
export type FileHit = { path: string; count: number; lines: HitLine[] };
export type SearchResult = { ok: true; files: FileHit[]; complete: boolean } | { ok: false; error: string };

/** Which engine searches: ripgrep at the path given, or the TypeScript walker when null. */
export type SearchEngine = { rg: string | null };

let engineCache: SearchEngine | null = null;

/** ripgrep if it is on PATH (looked up once), else the fallback. */
export function defaultEngine(): SearchEngine {
  engineCache ??= { rg: Bun.which("rg") };
  return engineCache;
}

/** Searches with ripgrep or the fallback; both give the same result for the same tree. */
export function search(query: SearchQuery, engine: SearchEngine): Promise<SearchResult> {
  return engine.rg ? searchWithRg(engine.rg, query) : searchWithWalker(query);
}

// ── ripgrep ──────────────────────────────────────────────────────────────────

function rgArgs(q: SearchQuery): string[] {
  const args = ["--no-config", "--hidden", "--no-require-git", "--color", "never", "--glob", "!.git"];
  if (q.ignoreCase) args.push("--ignore-case");
  if (q.glob) args.push("--glob", q.glob);
  args.push(...rgExclusions(q.guard));
  if (q.mode === "content") {
    // Not --json, which ignores --max-columns: a match in a long minified line would come whole.
    args.push("--sort", "path", "--null", "--line-number", "--with-filename", "--no-heading");
    args.push("--max-columns", String(MAX_COLUMNS), "--max-columns-preview");
    if (q.context > 0) args.push("--context", String(q.context));
  }
  if (q.mode === "files_with_matches") args.push("--files-with-matches", "--null");
  if (q.mode === "count") args.push("--count", "--with-filename", "--null");
  args.push("--regexp", q.pattern, "--", q.base);
  return args;
}

async function searchWithRg(rg: string, q: SearchQuery): Promise<SearchResult> {
  const proc = Bun.spawn([rg, ...rgArgs(q)], { cwd: q.root, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const kill = (): void => proc.kill();
  q.signal?.addEventListener("abort", kill, { once: true });
  // Cancelled before ripgrep started: the listener above will never be called.
  if (q.signal?.aborted) kill();
  try {
    const stderr = new Response(proc.stderr).text();
    const keep = (path: string): boolean => !q.guard?.leaveOut(path);
    const parsed = q.mode === "content" ? await readRgContent(proc.stdout, q.limit, keep, kill) : await readRgList(proc.stdout, q.mode, keep);
    const code = await proc.exited;
    if (code === 2 && parsed.files.length === 0) return { ok: false, error: rgError(await stderr) };
    return { ok: true, ...parsed };
  } finally {
    q.signal?.removeEventListener("abort", kill);
  }
}

function rgError(stderr: string): string {
  const text = stderr.trim().split("\n").slice(0, 6).join("\n");
  return text ? `ripgrep failed: ${text}` : "ripgrep failed without saying why.";
}

/** `path\0` (files) or `path\0count\n` (count) records. */
async function readRgList(
  stdout: ReadableStream<Uint8Array>,
  mode: SearchMode,
  keep: (path: string) => boolean,
): Promise<{ files: FileHit[]; complete: boolean }> {
  const text = await new Response(stdout).text();
  if (mode === "files_with_matches") {
    const files = text
      .split("\0")
      .filter((path) => path && keep(path))
      .map((path) => ({ path, count: 0, lines: [] }));
    return { files, complete: true };
  }
  const files: FileHit[] = [];
  // A newline in a file's name splits its record: what comes before the NUL is carried over.
  let carried = "";
  for (const record of text.split("\n")) {
    const at = record.lastIndexOf("\0");
    if (at === -1) {
      carried += `${record}\n`;
      continue;
    }
    const path = carried + record.slice(0, at);
    carried = "";
    if (keep(path)) files.push({ path, count: Number(record.slice(at + 1)), lines: [] });
  }
  return { files, complete: true };
}

/** A content record longer than this is cut as it is read (ripgrep keeps lines to MAX_COLUMNS, but a path may be long). */
const MAX_RECORD = MAX_COLUMNS + 8192;
/** What ripgrep's `--max-columns-preview` puts after the start of a line it cut. */
const PREVIEW_END = / \[\.\.\. (?:omitted end of long line|\d+ more match(?:es)?)\]$/;
/** `N:text` (a match) or `N-text` (context) after the path and its NUL. */
const RECORD = /^(\d+)([:-])(.*)$/s;

/**
 * ripgrep's `path\0N:text` and `path\0N-text` lines, stopping (and killing it) once more than
 * `limit` matching lines came. A file `keep` refuses is skipped whole: its lines neither shown
 * nor counted. Lines without a NUL (`--` between groups, a note on a binary file) are not lines
 * of a file.
 */
async function readRgContent(
  stdout: ReadableStream<Uint8Array>,
  limit: number,
  keep: (path: string) => boolean,
  kill: () => void,
): Promise<{ files: FileHit[]; complete: boolean }> {
  const files: FileHit[] = [];
  let file: FileHit | null = null;
  let path: string | null = null;
  let matches = 0;
  // A newline in a file's name splits its record: what comes before the NUL is carried over
  // (`--` between groups is ripgrep's own line, never part of a name).
  let carried = "";
  for await (const record of boundedLines(stdout, MAX_RECORD)) {
    const nul = record.text.indexOf("\0");
    if (nul === -1) {
      carried = record.text === "--" || carried.length > MAX_RECORD ? "" : `${carried}${record.text}\n`;
      continue;
    }
    const parsed = RECORD.exec(record.text.slice(nul + 1));
    const recordPath = carried + record.text.slice(0, nul);
    carried = "";
    if (!parsed) continue;
    if (recordPath !== path) {
      path = recordPath;
      file = keep(path) ? { path, count: 0, lines: [] } : null;
      if (file) files.push(file);
    }
    if (!file) continue;
    const isMatch = parsed[2] === ":";
    file.lines.push(rgLine(Number(parsed[1]), parsed[3] ?? "", isMatch, record.cut));
    if (!isMatch) continue;
    file.count++;
    if (++matches > limit) {
      kill();
      return { files, complete: false };
    }
  }
  return { files, complete: true };
}

function rgLine(n: number, raw: string, match: boolean, cutHere: boolean): HitLine {
  // A short line that happens to end like a preview is not one: ripgrep cuts at MAX_COLUMNS bytes.
  const found = PREVIEW_END.exec(raw);
  const preview = found && found.index >= MAX_COLUMNS / 4 ? found : null;
  const text = (preview ? raw.slice(0, preview.index) : raw).replace(/\r$/, "");
  return preview || cutHere ? { n, text, match, cut: {} } : { n, text, match };
}

/** The lines of a stream, none held past `max` characters: the rest of a longer one is dropped as it comes, and it is marked cut. */
async function* boundedLines(stream: ReadableStream<Uint8Array>, max: number): AsyncGenerator<{ text: string; cut: boolean }> {
  const decoder = new TextDecoder();
  let partial = "";
  let cut = false;
  const add = (piece: string): void => {
    if (cut) return;
    partial += piece;
    if (partial.length <= max) return;
    partial = partial.slice(0, max);
    cut = true;
  };
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    let from = 0;
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", from)) {
      add(text.slice(from, at));
      yield { text: partial, cut };
      partial = "";
      cut = false;
      from = at + 1;
    }
    add(text.slice(from));
  }
  add(decoder.decode());
  if (partial) yield { text: partial, cut };
}

// ── the fallback: the ignore-aware walker and JavaScript regular expressions ──

/** Files larger than this are skipped by the fallback, to bound memory. */
const MAX_FILE_BYTES = 50 * 1024 * 1024;
const SNIFF_BYTES = 8192;
const PARALLEL_READS = 16;

async function searchWithWalker(q: SearchQuery): Promise<SearchResult> {
  let regex: RegExp;
  try {
    regex = new RegExp(q.pattern, q.ignoreCase ? "i" : "");
  } catch (error) {
    return { ok: false, error: `The pattern is not a valid regular expression: ${error instanceof Error ? error.message : String(error)}` };
  }
  const paths = await filesToSearch(q);
  if (paths === null) return { ok: false, error: `${q.base} does not exist.` };
  const files: FileHit[] = [];
  let matches = 0;
  for (let i = 0; i < paths.length; i += PARALLEL_READS) {
    if (q.signal?.aborted) break;
    const batch = await Promise.all(paths.slice(i, i + PARALLEL_READS).map((path) => searchFile(path, regex, q)));
    for (const hit of batch) {
      if (!hit) continue;
      files.push(hit);
      matches += hit.count;
      if (q.mode === "content" && matches > q.limit) return { ok: true, files, complete: false };
    }
  }
  return { ok: true, files, complete: true };
}

/** The files under the base in ripgrep's `--sort path` order; a file base is searched alone. */
async function filesToSearch(q: SearchQuery): Promise<string[] | null> {
  const info = await stat(q.base).catch(() => null);
  if (!info) return null;
  if (info.isFile()) return [q.base];
  const override = q.glob ? globOverride(q.glob) : undefined;
  const found: { abs: string; rel: string }[] = [];
  for await (const entry of walk(q.base, { root: q.root, signal: q.signal, override, leaveOut: q.guard?.leaveOut })) {
    if (entry.type === "file") found.push(entry);
  }
  return found.sort((a, b) => comparePaths(a.rel, b.rel)).map((entry) => entry.abs);
}

/**
 * ripgrep's `--glob` as an override: a name-only glob matches at any depth, one with a slash the
 * path from the base; a match takes the file even if ignored; a file no positive glob matches is
 * skipped; `!glob` skips what it matches.
 */
export function globOverride(glob: string): (rel: string, isDir: boolean) => boolean | null {
  const negated = glob.startsWith("!");
  const pattern = (negated ? glob.slice(1) : glob).replace(/^\//, "");
  const matcher = new Bun.Glob(pattern);
  const byName = !pattern.includes("/");
  return (rel, isDir) => {
    const subject = byName ? (rel.split("/").at(-1) ?? rel) : rel;
    const matches = matcher.match(subject);
    if (negated) return matches ? false : null;
    if (matches) return true;
    return isDir ? null : false;
  };
}

/**
 * Searches one file a line at a time, holding a bounded amount of each line (see scanLines) and,
 * in content mode, only the lines to show: matches, their context, the `context` lines before.
 */
async function searchFile(path: string, regex: RegExp, q: SearchQuery): Promise<FileHit | null> {
  const stream = await searchableStream(path);
  if (!stream) return null;
  const hit: FileHit = { path, count: 0, lines: [] };
  const before: HitLine[] = [];
  let after = 0;
  for await (const line of scanLines(stream, regex)) {
    const shown: HitLine = { n: line.n, text: line.text, match: line.match, ...(line.cut ? { cut: line.cut } : {}) };
    if (line.match) {
      hit.count++;
      if (q.mode === "files_with_matches") break;
      if (q.mode !== "content") continue;
      hit.lines.push(...before.splice(0), shown);
      after = q.context;
      // The search stops past the limit: more of this file would not be shown.
      if (hit.count > q.limit) break;
      continue;
    }
    if (q.mode !== "content") continue;
    if (after > 0) {
      hit.lines.push(shown);
      after--;
      continue;
    }
    if (q.context === 0) continue;
    before.push(shown);
    if (before.length > q.context) before.shift();
  }
  return hit.count > 0 ? hit : null;
}

/** A file's bytes as a stream, or null when it is binary (a NUL byte near its start), too large or unreadable. */
async function searchableStream(path: string): Promise<ReadableStream<Uint8Array> | null> {
  try {
    const file = Bun.file(path);
    if (file.size > MAX_FILE_BYTES) return null;
    const head = await file.slice(0, SNIFF_BYTES).bytes();
    if (head.includes(0)) return null;
    return file.stream();
  } catch {
    return null;
  }
}
