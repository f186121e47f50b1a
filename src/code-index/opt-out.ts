import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Config } from "../config/schema.ts";

/** Where a project's team opts out of the code index (`"index": false`), at its root: committed, shared. */
export const PROJECT_SETTINGS = ".agent/settings.json";
/**
 * Where one person opts a project out: lembas's own personal file beside the shared one, which git
 * is told to ignore (Claude Code's settings.local.json is left to Claude Code, which knows no `index`).
 */
export const PERSONAL_SETTINGS = ".agent/settings.local.json";

/** What a process knows of projects' settings files: each read again only when its stamp changed. */
export type SettingsSeen = Map<string, { stamp: string; off: boolean }>;

/**
 * Why the project at `root` is not indexed, or null when it is: no embedding model, `index: false`
 * in config.yaml, or `"index": false` in the project's personal or shared settings file (with
 * `seen`, read again only when the file changed: the engine asks at every step).
 */
export function indexOff(config: Pick<Config, "embedding" | "index">, root: string, seen: SettingsSeen = new Map()): string | null {
  if (!config.embedding) return "no embedding model is set (embedding: in config.yaml)";
  if (!config.index) return "index: false in config.yaml";
  if (optsOut(join(root, PERSONAL_SETTINGS), seen)) return `"index": false in ${PERSONAL_SETTINGS}, yours`;
  if (optsOut(join(root, PROJECT_SETTINGS), seen)) return `"index": false in ${PROJECT_SETTINGS}, the project's`;
  return null;
}

function optsOut(path: string, seen: SettingsSeen): boolean {
  let stamp: string;
  try {
    const s = statSync(path);
    stamp = `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return false;
  }
  const known = seen.get(path);
  if (known?.stamp === stamp) return known.off;
  let off = false;
  try {
    const json: unknown = JSON.parse(readFileSync(path, "utf8"));
    off = typeof json === "object" && json !== null && "index" in json && json.index === false;
  } catch {
    // A file that does not read says nothing of the index (its hooks' reader says what is wrong).
  }
  seen.set(path, { stamp, off });
  return off;
}

/**
 * Sets `"index": false` in a settings file (`off`), or takes the key out (`on`), keeping its other
 * keys; a file that is not a JSON object is left as it is, with a sentence saying so. Returns
 * whether the file changed.
 */
export function writeIndexSetting(path: string, off: boolean): boolean {
  let settings: Record<string, unknown> = {};
  if (existsSync(path)) {
    try {
      const json: unknown = JSON.parse(readFileSync(path, "utf8"));
      if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Error("not a JSON object");
      settings = json as Record<string, unknown>;
    } catch (error) {
      throw new Error(`${path} does not read as JSON (${error instanceof Error ? error.message : String(error)}): fix it, or ${off ? 'add "index": false to' : 'take "index" out of'} it by hand`);
    }
  } else if (!off) return false;
  if (off ? settings.index === false : !("index" in settings)) return false;
  const { index: _, ...rest } = settings;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(off ? { ...rest, index: false } : rest, null, 2)}\n`);
  return true;
}
