import { stat } from "node:fs/promises";
import { z } from "zod";
import { walk } from "./ignore-walk.ts";
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

export type HitLine = { n: number; text: string; match: boolean };
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
    args.push("--json", "--sort", "path");
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
  try {
    const stderr = new Response(proc.stderr).text();
    const keep = (path: string): boolean => !q.guard?.leaveOut(path);
    const parsed = q.mode === "content" ? await readRgJson(proc.stdout, q.limit, keep, kill) : await readRgList(proc.stdout, q.mode, keep);
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
  const files = text
    .split("\n")
    .filter(Boolean)
    .flatMap((record) => {
      const at = record.lastIndexOf("\0");
      const path = record.slice(0, at);
      return at === -1 || !keep(path) ? [] : [{ path, count: Number(record.slice(at + 1)), lines: [] }];
    });
  return { files, complete: true };
}

const rgData = z.union([z.object({ text: z.string() }), z.object({ bytes: z.string() })]);
const rgMessage = z.object({
  type: z.string(),
  data: z
    .object({ path: rgData.optional(), lines: rgData.optional(), line_number: z.number().nullable().optional() })
    .optional(),
});

function rgText(data: z.infer<typeof rgData>): string {
  return "text" in data ? data.text : Buffer.from(data.bytes, "base64").toString("utf8");
}

/**
 * ripgrep's JSON lines, stopping (and killing it) once more than `limit` matching lines came. A
 * file `keep` refuses is skipped whole: its lines neither shown nor counted.
 */
async function readRgJson(
  stdout: ReadableStream<Uint8Array>,
  limit: number,
  keep: (path: string) => boolean,
  kill: () => void,
): Promise<{ files: FileHit[]; complete: boolean }> {
  const files: FileHit[] = [];
  let file: FileHit | null = null;
  let matches = 0;
  for await (const line of jsonLines(stdout)) {
    const message = rgMessage.safeParse(safeJson(line));
    if (!message.success) continue;
    const { type, data } = message.data;
    if (type === "begin" && data?.path) {
      const path = rgText(data.path);
      file = keep(path) ? { path, count: 0, lines: [] } : null;
      if (file) files.push(file);
    }
    if ((type !== "match" && type !== "context") || !data?.lines || !data.line_number) continue;
    if (!file) continue;
    const isMatch = type === "match";
    file.lines.push({ n: data.line_number, text: rgText(data.lines).replace(/\r?\n$/, ""), match: isMatch });
    if (!isMatch) continue;
    file.count++;
    if (++matches > limit) {
      kill();
      return { files, complete: false };
    }
  }
  return { files, complete: true };
}

async function* jsonLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let partial = "";
  for await (const chunk of stream) {
    const parts = (partial + decoder.decode(chunk, { stream: true })).split("\n");
    partial = parts.pop() ?? "";
    yield* parts;
  }
  if (partial) yield partial;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
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

async function searchFile(path: string, regex: RegExp, q: SearchQuery): Promise<FileHit | null> {
  const text = await readSearchable(path);
  if (text === null) return null;
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const matched: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!regex.test(lines[i] ?? "")) continue;
    matched.push(i);
    if (q.mode === "files_with_matches") break;
  }
  if (matched.length === 0) return null;
  const hit: FileHit = { path, count: matched.length, lines: [] };
  if (q.mode === "content") hit.lines = withContext(lines, matched, q.context);
  return hit;
}

/** Matching lines and `context` lines around each, in order, each line once. */
function withContext(lines: string[], matched: number[], context: number): HitLine[] {
  const isMatch = new Set(matched);
  const out: HitLine[] = [];
  let next = 0;
  for (const i of matched) {
    const from = Math.max(next, i - context);
    const to = Math.min(lines.length - 1, i + context);
    for (let j = from; j <= to; j++) out.push({ n: j + 1, text: (lines[j] ?? "").replace(/\r$/, ""), match: isMatch.has(j) });
    next = Math.max(next, to + 1);
  }
  return out;
}

/** A file's text, or null when it is binary (a NUL byte near its start), too large or unreadable. */
async function readSearchable(path: string): Promise<string | null> {
  try {
    const file = Bun.file(path);
    if (file.size > MAX_FILE_BYTES) return null;
    const bytes = await file.bytes();
    if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return null;
    return new TextDecoder().decode(bytes);
  } catch {
    return null;
  }
}
