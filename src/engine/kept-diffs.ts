import type { FileDiff } from "../tools/tool.ts";

/** Up to this many characters (old and new text together) a diff is kept whole with its call's result. */
export const KEPT_DIFF_CHARS = 256 * 1024;
/** Unchanged lines kept on each side of the change in a diff too large to keep whole. */
const CONTEXT_LINES = 20;

/**
 * The diffs a call showed, as the store keeps them with its result (an editor's session/load
 * shows them again): whole, as they were shown live; one of a file too large to keep at every
 * edit is narrowed to its changed lines and CONTEXT_LINES around them, a line saying how many
 * unchanged lines were left out above and below, in both texts alike (so it reads as context).
 */
export function keptDiffs(diffs: readonly FileDiff[]): FileDiff[] {
  return diffs.map((diff) => ((diff.oldText?.length ?? 0) + diff.newText.length <= KEPT_DIFF_CHARS ? diff : narrowed(diff)));
}

function narrowed(diff: FileDiff): FileDiff {
  const before = (diff.oldText ?? "").split("\n");
  const after = diff.newText.split("\n");
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const from = Math.max(0, head - CONTEXT_LINES);
  const keepTail = Math.max(0, tail - CONTEXT_LINES);
  const cut = (lines: string[]) => {
    const kept = lines.slice(from, lines.length - keepTail);
    if (from > 0) kept.unshift(`[… ${from} unchanged lines above …]`);
    if (keepTail > 0) kept.push(`[… ${keepTail} unchanged lines below …]`);
    return kept.join("\n");
  };
  return { path: diff.path, oldText: diff.oldText === null ? null : cut(before), newText: cut(after) };
}
