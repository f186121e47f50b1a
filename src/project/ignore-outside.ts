import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Ignore } from "ignore";
import { isInside } from "../paths.ts";

const DOT_IGNORES = [".ignore", ".rgignore"];

/** The rules of one ignore source, which match paths relative to `dir`. */
export type Layer = { dir: string; rules: Ignore };

/** The `ignore` package, loaded with the first rules read: a start that walks no tree never loads it. */
export const ignoreRules = (): Ignore => (require("ignore") as typeof import("ignore"))();

/** Where HOME and XDG_CONFIG_HOME come from when looking for git's global excludes file. */
export type Env = Record<string, string | undefined>;

/**
 * The rules ripgrep applies to a tree from outside it, lowest precedence first: git's global
 * excludes file, the repository's `.git/info/exclude`, then the ignore files of the directories
 * above `start` from the outermost down — `.ignore` and `.rgignore` all the way up, `.gitignore`
 * only up to the repository's top (as ripgrep 13 does). The exclude file's rules match paths
 * relative to the repository's top, the global ones relative to `start` (ripgrep's working directory).
 */
export async function outsideLayers(start: string, env: Env = process.env): Promise<Layer[]> {
  const repo = repositoryTop(start);
  const parents: Promise<Layer | null>[] = [];
  for (let dir = start, up = dirname(start); up !== dir; dir = up, up = dirname(up)) {
    const git = repo === null || isInside(up, repo);
    parents.unshift(loadLayer(up, git ? [".gitignore", ...DOT_IGNORES] : DOT_IGNORES));
  }
  const layers = await Promise.all([
    globalExcludesFile(env).then((file) => (file ? loadFile(start, file) : null)),
    repo ? loadFile(repo, join(repo, ".git", "info", "exclude")) : Promise.resolve(null),
    ...parents,
  ]);
  return layers.filter((layer): layer is Layer => layer !== null);
}

/** The nearest directory at or above `dir` holding a `.git` (directory or worktree file), or null. */
export function repositoryTop(dir: string): string | null {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, ".git"))) return at;
    if (dirname(at) === at) return null;
  }
}

/**
 * git's global excludes file as ripgrep finds it: `core.excludesFile` from ~/.gitconfig, else from
 * $XDG_CONFIG_HOME/git/config, else $XDG_CONFIG_HOME/git/ignore (XDG_CONFIG_HOME defaulting to
 * ~/.config). Like ripgrep, GIT_CONFIG_GLOBAL is not consulted.
 */
export async function globalExcludesFile(env: Env): Promise<string | null> {
  const home = env.HOME;
  const xdg = env.XDG_CONFIG_HOME || (home ? join(home, ".config") : null);
  const configs = [home ? join(home, ".gitconfig") : null, xdg ? join(xdg, "git", "config") : null];
  for (const config of configs) {
    if (!config) continue;
    const text = await readFile(config, "utf8").catch(() => "");
    const value = /^\s*excludesfile\s*=\s*(.+?)\s*$/im.exec(text)?.[1];
    if (value) return expandTilde(value.replace(/^"(.*)"$/, "$1"), home);
  }
  return xdg ? join(xdg, "git", "ignore") : null;
}

function expandTilde(path: string, home: string | undefined): string {
  return home && path.startsWith("~/") ? join(home, path.slice(2)) : path;
}

async function loadLayer(dir: string, names: string[]): Promise<Layer | null> {
  const texts = await Promise.all(names.map((name) => readFile(join(dir, name), "utf8").catch(() => "")));
  return layerOf(dir, texts.join("\n"));
}

async function loadFile(dir: string, file: string): Promise<Layer | null> {
  return layerOf(dir, await readFile(file, "utf8").catch(() => ""));
}

function layerOf(dir: string, text: string): Layer | null {
  if (!text.trim()) return null;
  return { dir, rules: ignoreRules().add(text) };
}
