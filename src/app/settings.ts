import { getConfigKey, parseCliValue, setConfigKey, unsetConfigKey } from "../config/save.ts";
import type { Context } from "./context.ts";
import { isPersonalField } from "../account/personalization.ts";
import { writePersonal } from "../account/personal-write.ts";
import { localKeys } from "../account/personal-settings.ts";
import { listLogins } from "../store/logins.ts";

/** A config value as `lembas config get` and the set/unset lines show it: YAML for a map or a list. */
export function showValue(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") return Bun.YAML.stringify(value, null, 2).trimEnd();
  return String(value);
}

/**
 * `lembas config set`'s work, for every front end (the terminal's /settings too): KEY set to VALUE
 * read as YAML, validated and written atomically. Returns the line that says what it now is.
 */
export function setConfigText(file: string, key: string, value: string): string {
  const config = setConfigKey(file, key, parseCliValue(value));
  return `${key} = ${showValue(getConfigKey(config, key))}`;
}

/**
 * `lembas config set` and /settings: `personality`, `personality_custom` and `instructions` go to
 * the instance whose personalization applies (config.yaml is then left as it is); the rest, and
 * those when no instance applies, to config.yaml.
 */
export async function setSetting(ctx: Context, key: string, value: string): Promise<{ line: string; to: "instance" | "config" }> {
  if (isPersonalField(key)) {
    const db = ctx.db();
    const written = await writePersonal(db, localKeys(ctx.config), listLogins(db), key, parseCliValue(value));
    if (written.kind === "saved") return { line: written.line, to: "instance" };
  }
  return { line: setConfigText(ctx.paths.configFile, key, value), to: "config" };
}

/** `lembas config unset`'s work: KEY taken out of the file, so its default applies. Returns the line that says so. */
export function unsetConfigText(file: string, key: string): string {
  const config = unsetConfigKey(file, key);
  if (config === null) return `${key} is not set in ${file}`;
  const value = getConfigKey(config, key);
  return value === undefined ? `unset ${key}` : `unset ${key}: it is ${showValue(value)}, the default`;
}
