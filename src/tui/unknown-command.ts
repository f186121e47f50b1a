import { existsSync } from "node:fs";
import { editDistance } from "../suggest.ts";

/** A `/word` alone or before a space: what could be a command (a `/path/with/slashes` is not). */
const WORD = /^\/([A-Za-z0-9][\w:-]*)(?=\s|$)/;

/**
 * What the terminal answers for a typed line that looks like a command and is none: `/hel` is
 * "unknown command /hel — did you mean /help?". null when it is a command (in `names`), not a
 * `/word` at all, or a path that is there (`/tmp is full`): those go on as they are.
 */
export function unknownCommand(text: string, names: readonly string[], pathExists: (path: string) => boolean = existsSync): string | null {
  const word = WORD.exec(text.trim())?.[1];
  if (word === undefined || names.includes(word) || pathExists(`/${word}`)) return null;
  const near = nearest(word, names);
  return `unknown command /${word} — ${near ? `did you mean /${near}?` : "/help lists the commands"}`;
}

/** The name closest to `word`: one it starts, else one a typo or two away (fewer for short words). */
function nearest(word: string, names: readonly string[]): string | null {
  const lower = word.toLowerCase();
  const started = names.filter((name) => name.startsWith(lower));
  if (started.length > 0) return started.reduce((a, b) => (b.length < a.length ? b : a));
  const allowed = lower.length <= 3 ? 1 : 2;
  let best: { name: string; distance: number } | null = null;
  for (const name of names) {
    const distance = editDistance(lower, name.toLowerCase());
    if (distance <= allowed && (best === null || distance < best.distance)) best = { name, distance };
  }
  return best?.name ?? null;
}
