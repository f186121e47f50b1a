import { join } from "node:path";
import type { CodeHit } from "../tools/code-search-backend.ts";
import { MAX_FILE_BYTES, sourceText } from "./eligible.ts";
import { holdsSecret } from "./secret-text.ts";

/** What a grep before the index is ready reads at most: a turn waits on it. */
export const GREP_FILES = 2_000;
const GREP_BYTES = 16 * 1024 * 1024;
const STOP_WORDS = new Set(["the", "and", "for", "that", "this", "with", "from", "what", "where", "which", "how", "does", "are", "not", "into", "its", "all", "any"]);

const SHORT_STOP_WORDS = new Set(["an", "of", "to", "in", "is", "it", "on", "or", "be", "by", "as", "at", "do", "if", "we", "my"]);

/** The query's words worth grepping for: three letters or more, lower-cased, common English words left out. */
export function queryWords(query: string): string[] {
  return wordsOf(query).filter((w) => w.length >= 3).slice(0, 16);
}

/** The query's words the index's text search matches: single letters (any code has `a` and `x`) and common English words left out. */
export function textWords(query: string): string[] {
  return wordsOf(query).filter((w) => w.length >= 2 && !SHORT_STOP_WORDS.has(w));
}

function wordsOf(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  return [...new Set(words)].filter((w) => !STOP_WORDS.has(w));
}

/**
 * The lines of `paths` (files not yet indexed) holding most of the query's words, best first:
 * bounded to GREP_FILES files and GREP_BYTES read. `looked` says how many files it read.
 */
export async function grepFiles(root: string, paths: readonly string[], query: string, limit: number, within?: (path: string) => boolean): Promise<{ hits: CodeHit[]; looked: number }> {
  const words = queryWords(query);
  const hits: CodeHit[] = [];
  if (words.length === 0) return { hits, looked: 0 };
  let looked = 0;
  let bytes = 0;
  for (const path of paths) {
    if (looked >= GREP_FILES || bytes >= GREP_BYTES) break;
    if (within && !within(path)) continue;
    let data: Uint8Array;
    try {
      const file = Bun.file(join(root, path));
      if (file.size > MAX_FILE_BYTES) continue;
      data = await file.bytes();
    } catch {
      continue;
    }
    looked += 1;
    bytes += data.byteLength;
    const source = sourceText(data);
    if (!("text" in source)) continue;
    const lines = source.text.split(/\r?\n/);
    lines.forEach((line, i) => {
      const lower = line.toLowerCase();
      const found = words.filter((w) => lower.includes(w)).length;
      if (found > 0 && !holdsSecret(line)) hits.push({ path, startLine: i + 1, endLine: i + 1, text: line.trim().slice(0, 200), score: found / words.length });
    });
    // Only the best are kept as it goes: memory stays bounded whatever the files hold.
    if (hits.length > limit * 50) best(hits, limit);
  }
  best(hits, limit);
  return { hits, looked };
}

function best(hits: CodeHit[], limit: number): void {
  hits.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path) || a.startLine - b.startLine);
  hits.length = Math.min(hits.length, limit);
}

