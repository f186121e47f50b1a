import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { errorCode, errorMessage } from "../errors.ts";
import { realOrResolved } from "../store/trust.ts";

/**
 * Where a project's settings are written, at its root: lembas's own file, and Claude Code's shared
 * and personal (uncommitted) ones, read too. Their `hooks` and `permissions` are read from here.
 */
export const PROJECT_SETTINGS_FILES = [".agent/settings.json", ".claude/settings.json", ".claude/settings.local.json"] as const;

/** One settings file as read: its JSON object, or why it does not read (said once, for its hooks and permissions both). */
export type SettingsFile = { file: string; path: string } & ({ json: Record<string, unknown> } | { problem: string });

/**
 * A project's settings files, each read again only when its stamp (inode, size, times) changed:
 * a session asks at every turn and every hook, and an unchanged file costs a stat.
 */
export class ProjectSettings {
  private readonly seen = new Map<string, { stamp: string; read: SettingsFile }>();

  constructor(readonly root: string) {}

  /** The files that are there, in PROJECT_SETTINGS_FILES's order. */
  files(): SettingsFile[] {
    return PROJECT_SETTINGS_FILES.flatMap((file) => {
      const read = this.read(file);
      return read ? [read] : [];
    });
  }

  private read(file: string): SettingsFile | null {
    // Most projects have none of these files: one stat says so, without resolving links first.
    if (stampOf(join(this.root, file)) === null) return null;
    const path = realOrResolved(join(this.root, file));
    const stamp = stampOf(path);
    if (stamp === null) return null;
    const known = this.seen.get(path);
    if (known && known.stamp === stamp) return known.read;
    const read = { file, path, ...parse(path) };
    this.seen.set(path, { stamp, read });
    return read;
  }
}

/** What changes when a file is written or replaced; null when there is no file. */
export function stampOf(path: string): string | null {
  try {
    // An absent file is the usual answer: said without an exception, which costs more than the stat.
    const s = statSync(path, { throwIfNoEntry: false });
    if (s === undefined) return null;
    return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return null;
    return `unreadable:${errorMessage(error)}`;
  }
}

function parse(path: string): { json: Record<string, unknown> } | { problem: string } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    return { problem: `${path} cannot be read: ${errorMessage(error)} (its hooks and permissions are left out)` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { problem: `${path} is not JSON: ${errorMessage(error)} (its hooks and permissions are left out)` };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return { problem: `${path} is not a JSON object (its hooks and permissions are left out)` };
  return { json: json as Record<string, unknown> };
}
