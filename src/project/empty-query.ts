import { entriesOf, type FileEntry, type FileIndex, type FileKind, type Frecency } from "./file-index.ts";

/** How many entries past the recent ones are worked out once per list: enough for any limit. */
const SHALLOW_KEPT = 100;

/** What an empty query gives: the recently used entries still in the index, most used first, then the shallowest. */
export function recentThenShallow(index: FileIndex, frecency: Frecency, limit: number): FileEntry[] {
  const entries = entriesOf(index);
  const out: FileEntry[] = [];
  const taken = new Set<string>();
  for (const path of frecency.recent) {
    if (out.length >= limit) return out;
    const kind = entries.get(path);
    if (!kind) continue;
    out.push({ path, kind });
    taken.add(path);
  }
  index.shallow ??= shallowest(entries, SHALLOW_KEPT);
  for (const entry of index.shallow) {
    if (out.length >= limit) break;
    if (!taken.has(entry.path)) out.push(entry);
  }
  return out;
}

/** The first `count` entries by depth, directories before files, then by path. */
function shallowest(entries: Map<string, FileKind>, count: number): FileEntry[] {
  const perDepth: number[] = [];
  for (const path of entries.keys()) {
    const depth = depthOf(path);
    perDepth[depth] = (perDepth[depth] ?? 0) + 1;
  }
  let deepest = 0;
  for (let held = 0; deepest < perDepth.length; deepest++) {
    held += perDepth[deepest] ?? 0;
    if (held >= count) break;
  }
  const picked: { entry: FileEntry; depth: number }[] = [];
  for (const [path, kind] of entries) {
    const depth = depthOf(path);
    if (depth <= deepest) picked.push({ entry: { path, kind }, depth });
  }
  picked.sort((a, b) => a.depth - b.depth || compareEntries(a.entry, b.entry));
  return picked.slice(0, count).map((p) => p.entry);
}

function depthOf(path: string): number {
  let depth = 0;
  for (let at = path.indexOf("/"); at >= 0; at = path.indexOf("/", at + 1)) depth++;
  return depth;
}

function compareEntries(a: FileEntry, b: FileEntry): number {
  if (a.kind !== b.kind) return a.kind === "dir" ? -1 : 1;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
