import { defineCommand } from "./command.ts";
import { ConfigError } from "../config/errors.ts";
import { getConfigKey, parseCliValue, setConfigKey } from "../config/save.ts";
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
    if (value === undefined) throw new ConfigError(ctx.paths.configFile, args.key, "is not a known key");
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

export default defineCommand({
  meta: { name: "config", description: "Read and change config.yaml", examples: ["lembas config set model local/qwen2.5-coder", "lembas config edit"] },
  subCommands: { path, get, set },
});
