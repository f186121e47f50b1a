import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError } from "./errors.ts";
import { parseYaml, validateConfig } from "./load.ts";
import type { Config } from "./schema.ts";
import { unknownKey } from "./keys.ts";
import { editYamlKey, removeYamlKey } from "./yaml-edit.ts";

type Tree = Record<string, unknown>;

/** Writes a file whole or not at all: a temp file beside it, then a rename. */
export function writeAtomic(file: string, text: string, mode = 0o600): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temp, text, { mode });
  chmodSync(temp, mode);
  renameSync(temp, file);
}

/** Reads the file's own keys (not the defaults), so that saving keeps it as small as the person wrote it. */
function readTree(file: string): Tree {
  if (!existsSync(file)) return {};
  const raw = parseYaml(file, readFileSync(file, "utf8")) ?? {};
  if (typeof raw !== "object" || Array.isArray(raw)) throw new ConfigError(file, "", "must be a mapping of keys to values");
  return raw as Tree;
}

/** A value typed on the command line: YAML when it parses (numbers, booleans, lists), else the plain string. */
export function parseCliValue(text: string): unknown {
  try {
    const value: unknown = Bun.YAML.parse(text);
    return value === undefined ? text : value;
  } catch {
    return text;
  }
}

/** Sets KEY (dotted) to VALUE, validates the whole file, and writes it atomically. Returns the new config. */
export function setConfigKey(file: string, key: string, value: unknown): Config {
  const unknown = unknownKey(key);
  if (unknown) throw new ConfigError(file, key, unknown);
  const tree = readTree(file);
  const parts = key.split(".").filter(Boolean);
  let node: Tree = tree;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (next === undefined || next === null) node[part] = {};
    else if (typeof next !== "object" || Array.isArray(next)) throw new ConfigError(file, key, `cannot be set: ${part} is not a mapping`);
    node = node[part] as Tree;
  }
  node[parts.at(-1) as string] = value;
  const config = validateConfig(file, tree);
  writeAtomic(file, editedText(file, parts, value, tree));
  return config;
}

/**
 * The file with the key set: only that key's lines changed, so the person's comments stay; the
 * whole file written anew when the edit cannot be made that way or would not read back as `tree`.
 */
function editedText(file: string, parts: readonly string[], value: unknown, tree: Tree): string {
  const whole = `${Bun.YAML.stringify(tree, null, 2)}\n`;
  if (!existsSync(file)) return whole;
  const edited = editYamlKey(readFileSync(file, "utf8"), parts, value);
  if (edited === null) return whole;
  try {
    return Bun.deepEquals(Bun.YAML.parse(edited), tree) ? edited : whole;
  } catch {
    return whole;
  }
}

/**
 * Takes KEY (dotted) out of the file, so that its default applies again; a mapping it leaves empty
 * goes too. Validates the rest and writes it atomically. Returns the new config, or null when the
 * file did not set the key (the file is then not written).
 */
export function unsetConfigKey(file: string, key: string): Config | null {
  const unknown = unknownKey(key);
  if (unknown) throw new ConfigError(file, key, unknown);
  const tree = readTree(file);
  const parts = key.split(".").filter(Boolean);
  const path = presentPath(tree, parts);
  if (!path) return null;
  const config = validateConfig(file, without(tree, path));
  writeAtomic(file, removedText(file, path, without(tree, path)));
  return config;
}

/** `parts` if the tree has it, shortened to the shallowest mapping its removal would leave empty; null if it is not there. */
function presentPath(tree: Tree, parts: readonly string[]): string[] | null {
  let node: unknown = tree;
  let keep = 0;
  for (const [i, part] of parts.entries()) {
    if (typeof node !== "object" || node === null || Array.isArray(node) || !(part in node)) return null;
    if (Object.keys(node).length > 1 || i === 0) keep = i;
    node = (node as Tree)[part];
  }
  return parts.slice(0, keep + 1);
}

function without(tree: Tree, path: readonly string[]): Tree {
  const copy = structuredClone(tree);
  let node: Tree = copy;
  for (const part of path.slice(0, -1)) node = node[part] as Tree;
  delete node[path.at(-1) as string];
  return copy;
}

/** The file without the key's lines, its comments kept; written anew when that edit does not read back as `tree`. */
function removedText(file: string, path: readonly string[], tree: Tree): string {
  const whole = Object.keys(tree).length === 0 ? "" : `${Bun.YAML.stringify(tree, null, 2)}\n`;
  const edited = removeYamlKey(readFileSync(file, "utf8"), path);
  if (edited === null) return whole;
  try {
    return Bun.deepEquals(Bun.YAML.parse(edited) ?? {}, tree) ? edited : whole;
  } catch {
    return whole;
  }
}

/** The value at a dotted key of a loaded config, or undefined when there is no such key. */
export function getConfigKey(config: Config, key: string): unknown {
  let node: unknown = config;
  for (const part of key.split(".").filter(Boolean)) {
    if (typeof node !== "object" || node === null || !(part in node)) return undefined;
    node = (node as Tree)[part];
  }
  return node;
}
