import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/schema.ts";

/** Where a project opts out of the code index (`"index": false`), at its root. */
export const PROJECT_SETTINGS = ".agent/settings.json";

/** What a process knows of projects' settings files: each read again only when its stamp changed. */
export type SettingsSeen = Map<string, { stamp: string; off: boolean }>;

/**
 * Why the project at `root` is not indexed, or null when it is: no embedding model, `index: false`
 * in config.yaml, or `"index": false` in the project's .agent/settings.json (with `seen`, read
 * again only when the file changed: the engine asks at every step).
 */
export function indexOff(config: Pick<Config, "embedding" | "index">, root: string, seen: SettingsSeen = new Map()): string | null {
  if (!config.embedding) return "no embedding model is set (embedding: in config.yaml)";
  if (!config.index) return "index: false in config.yaml";
  if (projectOptsOut(root, seen)) return `"index": false in ${PROJECT_SETTINGS}`;
  return null;
}

function projectOptsOut(root: string, seen: SettingsSeen): boolean {
  const path = join(root, PROJECT_SETTINGS);
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
