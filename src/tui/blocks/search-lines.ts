/**
 * A web_search result on its block (tools/web-search.ts writes it: the answer, then "Sources:" and
 * a numbered line each): how many sources, then each one's title and URL, a few at most.
 */
const SHOWN = 5;

export function searchLines(all: readonly string[], dim: (text: string) => string): { head: string; sources: string[] } {
  const from = all.lastIndexOf("Sources:");
  const sources = from < 0 ? [] : all.slice(from + 1).flatMap((line) => /^\d+\. (.+)$/.exec(line)?.[1] ?? []);
  if (sources.length === 0) return { head: `${all[0] ?? ""}${dim(" (no sources given)")}`, sources: [] };
  const count = sources.length === 1 ? "1 source" : `${sources.length} sources`;
  const more = sources.length > SHOWN ? [`… ${sources.length - SHOWN} more`] : [];
  return { head: count, sources: [...sources.slice(0, SHOWN), ...more] };
}
