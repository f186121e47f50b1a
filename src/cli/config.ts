import { defineCommand } from "./command.ts";
import { ConfigError } from "../config/errors.ts";
import { unknownKey } from "../config/keys.ts";
import { getConfigKey, parseCliValue, setConfigKey, unsetConfigKey } from "../config/save.ts";
import { askYes, chosenEditor, editConfig } from "./config-edit.ts";
import { type Context, createContext } from "./context.ts";
import { isPersonalField } from "../account/personalization.ts";
import { writePersonal } from "../account/personal-write.ts";
import { localKeys } from "../account/personal-settings.ts";
import { listLogins } from "../store/logins.ts";
import { presetLines } from "../config/personalities.ts";

function show(value: unknown): string {
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
  return `${key} = ${show(getConfigKey(config, key))}`;
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

const PERSONALITIES = `personality is one of:\n${presetLines().map((line) => `  ${line}`).join("\n")}\nLogged in to one instance that has personalization, its settings apply and set writes them back there.`;

const path = defineCommand({
  meta: { name: "path", description: "Print the path of config.yaml", examples: ["lembas config path"] },
  run() {
    console.log(createContext().paths.configFile);
  },
});

const get = defineCommand({
  meta: {
    name: "get",
    description: `Print a key's value (dotted, e.g. remote.max_mode); no key: the whole config.\n${PERSONALITIES}`,
    examples: ["lembas config get", "lembas config get remote.max_mode", "lembas config get personality"],
  },
  args: { key: { type: "positional", required: false, description: "dotted key" } },
  run({ args }) {
    const ctx = createContext();
    const config = ctx.config();
    if (!args.key) return void console.log(show(config));
    const value = getConfigKey(config, args.key);
    if (value === undefined) throw new ConfigError(ctx.paths.configFile, args.key, unknownKey(args.key) ?? "is not set");
    console.log(show(value));
  },
});

const set = defineCommand({
  meta: { name: "set", description: `Set a key (validated, written atomically); VALUE is YAML: edit, true, 300, [~/work, ~/src].\n${PERSONALITIES}`,
    examples: ["lembas config set mode auto", "lembas config set remote.roots '[~/work, ~/src]'", "lembas config set personality concise"],
  },
  args: {
    key: { type: "positional", required: true, description: "dotted key" },
    value: { type: "positional", required: true, description: "the value, as YAML" },
  },
  async run({ args }) {
    console.log((await setSetting(createContext(), args.key, args.value)).line);
  },
});

/** `lembas config unset`'s work: KEY taken out of the file, so its default applies. Returns the line that says so. */
export function unsetConfigText(file: string, key: string): string {
  const config = unsetConfigKey(file, key);
  if (config === null) return `${key} is not set in ${file}`;
  const value = getConfigKey(config, key);
  return value === undefined ? `unset ${key}` : `unset ${key}: it is ${show(value)}, the default`;
}

const unset = defineCommand({
  meta: {
    name: "unset",
    description: "Take a key out of config.yaml, so that its default applies (the file's comments are kept)",
    examples: ["lembas config unset model", "lembas config unset connections.local.api_key"],
  },
  args: { key: { type: "positional", required: true, description: "dotted key" } },
  run({ args }) {
    console.log(unsetConfigText(createContext().paths.configFile, args.key));
  },
});

const edit = defineCommand({
  meta: {
    name: "edit",
    description: "Open config.yaml in $VISUAL or $EDITOR; it is saved once it is valid, else you may edit it again",
    examples: ["lembas config edit", "EDITOR=nano lembas config edit"],
  },
  async run() {
    const file = createContext().paths.configFile;
    const line = await editConfig(file, { editor: chosenEditor(), ask: askYes, tell: (l) => console.error(`lembas: ${l}`) });
    console.log(line);
  },
});

export default defineCommand({
  meta: { name: "config", description: "Read and change config.yaml", examples: ["lembas config set model local/qwen2.5-coder", "lembas config edit"] },
  subCommands: { path, get, set, unset, edit },
});
