import { existsSync, readFileSync } from "node:fs";
import { ConfigError } from "./errors.ts";
import { readConfigFast } from "./fast-read.ts";
import type { Config } from "./schema.ts";
import { yamlErrorAt } from "./yaml-position.ts";

/** Reads config.yaml; a missing file is the defaults, a bad one a ConfigError naming the key. */
export function loadConfig(file: string): Config {
  if (!existsSync(file)) return validateConfig(file, {});
  return parseConfig(file, readFileSync(file, "utf8"));
}

export function parseConfig(file: string, text: string): Config {
  const raw = parseYaml(file, text);
  return validateConfig(file, raw ?? {});
}

export function parseYaml(file: string, text: string): unknown {
  try {
    return Bun.YAML.parse(text);
  } catch (error) {
    const { line, column } = yamlErrorAt(text);
    const what = (error instanceof Error ? error.message : String(error)).replace(/^YAML Parse error: /, "");
    throw new ConfigError(file, "", `line ${line}, column ${column}: is not valid YAML (${what}): ${JSON.stringify(text.split(/\r?\n/)[line - 1] ?? "")}`);
  }
}

/**
 * config.yaml's mapping as the config: read by the fast reader when it takes the file (most files),
 * else checked by the schema, loaded then (config/validate.ts), which says what is wrong.
 */
export function validateConfig(file: string, raw: unknown): Config {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ConfigError(file, "", "must be a mapping of keys to values");
  }
  const mapping = raw as Record<string, unknown>;
  const fast = readConfigFast(mapping);
  if (fast) return fast;
  // Loaded here, not at the top: the schema and zod's objects are built only for a file that needs them.
  const { checkConfig } = require("./validate.ts") as typeof import("./validate.ts");
  return checkConfig(file, mapping);
}
