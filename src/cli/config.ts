import { defineCommand } from "./command.ts";
import { ConfigError } from "../config/errors.ts";
import { unknownKey } from "../config/keys.ts";
import { getConfigKey, parseCliValue, setConfigKey, unsetConfigKey } from "../config/save.ts";
import { askYes, chosenEditor, editConfig } from "./config-edit.ts";
import { createContext } from "./context.ts";

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

const path = defineCommand({
  meta: { name: "path", description: "Print the path of config.yaml", examples: ["lembas config path"] },
  run() {
    console.log(createContext().paths.configFile);
  },
});

const get = defineCommand({
  meta: { name: "get", description: "Print a key's value (dotted, e.g. remote.max_mode); no key: the whole config", examples: ["lembas config get", "lembas config get remote.max_mode"] },
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
  meta: { name: "set", description: "Set a key (validated, written atomically); VALUE is YAML: edit, true, 300, [~/work, ~/src]",
    examples: ["lembas config set mode auto", "lembas config set remote.roots '[~/work, ~/src]'", "lembas config set connections.local.base_url http://127.0.0.1:11434/v1"],
  },
  args: {
    key: { type: "positional", required: true, description: "dotted key" },
    value: { type: "positional", required: true, description: "the value, as YAML" },
  },
  run({ args }) {
    console.log(setConfigText(createContext().paths.configFile, args.key, args.value));
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
