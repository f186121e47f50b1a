import type { Db } from "../store/db.ts";
import { recentPrompts } from "../store/prompts.ts";

export { keepUnsentPrompts } from "../store/prompts.ts";

/** How many earlier prompts Up reaches: pi-tui's Editor keeps no more than this many. */
export const HISTORY_SIZE = 100;
/** How many earlier prompts Ctrl+R searches: far more than Up reaches, read when it is pressed. */
export const SEARCH_SIZE = 2_000;

/**
 * The prompts typed in a project's sessions (the sessions whose root is `root`), newest first,
 * trimmed, each once (its newest use), at most `size`.
 */
export function projectPrompts(db: Db, root: string, size = HISTORY_SIZE): string[] {
  const seen = new Set<string>();
  const prompts: string[] = [];
  // Duplicates are folded, so more rows than prompts are read.
  for (const typed of recentPrompts(db, root, 4 * size)) {
    const text = typed.trim();
    if (!text || seen.has(text)) continue;
    seen.add(text);
    prompts.push(text);
    if (prompts.length === size) break;
  }
  return prompts;
}
