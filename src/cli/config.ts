import { defineCommand } from "./command.ts";
import { ConfigError } from "../config/errors.ts";
import { unknownKey } from "../config/keys.ts";
import { getConfigKey } from "../config/save.ts";
import { askYes, chosenEditor, editConfig } from "./config-edit.ts";
import { createContext } from "../app/context.ts";
import { setSetting, showValue, unsetConfigText } from "../app/settings.ts";
import { presetLines } from "../config/personalities.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

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
    if (!args.key) return void console.log(showValue(config));
    const value = getConfigKey(config, args.key);
    if (value === undefined) throw new ConfigError(ctx.paths.configFile, args.key, unknownKey(args.key) ?? "is not set");
    console.log(showValue(value));
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
  meta: { name: "config", description: DESCRIPTIONS.config, examples: ["lembas config set model local/qwen2.5-coder", "lembas config edit"] },
  subCommands: { path, get, set, unset, edit },
});
