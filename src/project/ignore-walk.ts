import { type Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { type Env, ignoreRules, type Layer, outsideLayers } from "./ignore-outside.ts";
import { isInside } from "../paths.ts";

/** One entry found by {@link walk}. */
export type WalkEntry = {
  abs: string;
  /** Relative to the walk's base, with forward slashes. */
  rel: string;
  type: "file" | "dir" | "symlink";
  /** 0 for the base's own entries. */
  depth: number;
};

export type WalkOptions = {
  /** The project root: ignore files in the directories from it down to the base apply too. */
  root?: string;
  /** More gitignore-style patterns, relative to the base (the list tool's `ignore`). */
  ignore?: string[];
  signal?: AbortSignal;
  /**
   * Decides before the ignore rules, as ripgrep's `--glob` overrides do: true takes the entry even
   * if ignored, false skips it, null leaves it to the ignore rules.
   */
  override?: (rel: string, isDir: boolean) => boolean | null;
  /** Entries never yielded nor entered, whatever the ignore rules and the override say (protected paths). */
  leaveOut?: (abs: string) => boolean;
  /**
   * Also apply what ripgrep applies from outside the tree (see {@link outsideLayers}): ignore
   * files above the root (the base when no root is given), `.git/info/exclude`, git's global excludes.
   */
  parents?: boolean;
  /** Where HOME and XDG_CONFIG_HOME are read to find git's global excludes (default: process.env). */
  env?: Env;
};

type Pending = { abs: string; rel: string; depth: number; layers: Layer[] };

// In rising precedence: a later file's rules win, as in ripgrep.
const IGNORE_FILES = [".gitignore", ".ignore", ".rgignore"];

/**
 * Walks a directory breadth first, entries of each directory sorted by name, honouring
 * .gitignore, .ignore and .rgignore files (nested ones too, the deeper one winning as in git) and always
 * skipping `.git`. Symlinks are reported, never followed. Unreadable directories are skipped.
 */
export async function* walk(base: string, opts: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const extra = opts.ignore?.length ? ignoreRules().add(opts.ignore) : null;
  const outside = opts.parents ? await outsideLayers(opts.root ?? base, opts.env) : [];
  const layers = [...outside, ...(await ancestorLayers(base, opts.root))];
  const queue: Pending[] = [{ abs: base, rel: "", depth: 0, layers }];
  // An index, not shift(): the queue of a large tree would make shift() quadratic.
  for (let i = 0; i < queue.length; i++) {
    const next = queue[i];
    if (!next) continue;
    if (opts.signal?.aborted) return;
    const entries = await readdir(next.abs, { withFileTypes: true }).catch(() => [] as Dirent[]);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const layers = await withOwnLayer(next.layers, next.abs, entries);
    for (const entry of entries) {
      const type = entryType(entry);
      if (!type || entry.name === ".git") continue;
      const abs = join(next.abs, entry.name);
      const rel = next.rel ? `${next.rel}/${entry.name}` : entry.name;
      const isDir = type === "dir";
      if (extra?.ignores(isDir ? `${rel}/` : rel)) continue;
      if (opts.leaveOut?.(abs)) continue;
      const decided = opts.override?.(rel, isDir) ?? null;
      if (decided === false || (decided === null && isIgnored(layers, abs, isDir))) continue;
      yield { abs, rel, type, depth: next.depth };
      if (isDir) queue.push({ abs, rel, depth: next.depth + 1, layers });
    }
  }
}

/** Whether a path (absolute) is ignored by the layers, checked deepest first as git does. */
export function isIgnored(layers: Layer[], abs: string, isDir: boolean): boolean {
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i];
    if (!layer) continue;
    const rel = toPosix(relative(layer.dir, abs));
    const result = layer.rules.test(isDir ? `${rel}/` : rel);
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}

function entryType(entry: Dirent): WalkEntry["type"] | null {
  if (entry.isDirectory()) return "dir";
  if (entry.isSymbolicLink()) return "symlink";
  if (entry.isFile()) return "file";
  return null;
}

async function withOwnLayer(layers: Layer[], dir: string, entries: Dirent[]): Promise<Layer[]> {
  const names = IGNORE_FILES.filter((name) => entries.some((e) => e.name === name && e.isFile()));
  if (names.length === 0) return layers;
  const layer = await loadLayer(dir, names);
  return layer ? [...layers, layer] : layers;
}

/** The layers of the directories from the root down to the base's parent. */
async function ancestorLayers(base: string, root: string | undefined): Promise<Layer[]> {
  if (!root || root === base || !isInside(base, root)) return [];
  const dirs: string[] = [];
  for (let dir = dirname(base); isInside(dir, root); dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dir === root) break;
  }
  const layers = await Promise.all(dirs.map((dir) => loadLayer(dir, IGNORE_FILES)));
  return layers.filter((layer): layer is Layer => layer !== null);
}

async function loadLayer(dir: string, names: string[]): Promise<Layer | null> {
  const texts = await Promise.all(names.map((name) => readFile(join(dir, name), "utf8").catch(() => "")));
  const text = texts.join("\n");
  if (!text.trim()) return null;
  return { dir, rules: ignoreRules().add(text) };
}

function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}
