import type { Db } from "../store/db.ts";
import { recentPrompts } from "../store/prompts.ts";

/** How many earlier prompts Up reaches: pi-tui's Editor keeps no more than this many. */
export const HISTORY_SIZE = 100;
/** Rows read to find them: duplicates are folded, so more than HISTORY_SIZE are read. */
const ROWS_READ = 4 * HISTORY_SIZE;

/**
 * The prompts typed in a project's sessions (the sessions whose root is `root`), newest first,
 * trimmed, each once (its newest use), at most HISTORY_SIZE.
 */
export function projectPrompts(db: Db, root: string): string[] {
  const seen = new Set<string>();
  const prompts: string[] = [];
  for (const typed of recentPrompts(db, root, ROWS_READ)) {
    const text = typed.trim();
    if (!text || seen.has(text)) continue;
    seen.add(text);
    prompts.push(text);
    if (prompts.length === HISTORY_SIZE) break;
  }
  return prompts;
}
