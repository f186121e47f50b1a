import { existsSync, readFileSync } from "node:fs";
import type { z } from "zod";
import { ConfigError } from "./errors.ts";
import { nearestKey } from "./keys.ts";
import { Config } from "./schema.ts";
import { yamlErrorAt } from "./yaml-position.ts";

/**
 * How config.yaml is checked: once or twice a process, so without the code zod writes and compiles
 * for an object's first parse (its "fast path"), which costs more than the one parse it speeds up
 * (bench/README.md). The result and the issues are the same.
 */
const ONCE: z.core.ParseContext<z.core.$ZodIssue> = { jitless: true };

/** Reads config.yaml; a missing file is the defaults, a bad one a ConfigError naming the key. */
export function loadConfig(file: string): Config {
  if (!existsSync(file)) return Config.parse({}, ONCE);
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

export function validateConfig(file: string, raw: unknown): Config {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ConfigError(file, "", "must be a mapping of keys to values");
  }
  const result = Config.safeParse(raw, ONCE);
  if (result.success) return result.data;
  // A misspelt key is the cause of the key missing beside it (base_ulr, then "base_url: required"): it is said first.
  const issues = result.error.issues;
  throw issueToError(file, issues.find((i) => i.code === "unrecognized_keys") ?? issues[0]);
}

function issueToError(file: string, issue: z.core.$ZodIssue | undefined): ConfigError {
  if (!issue) return new ConfigError(file, "", "is not valid");
  const key = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    const names = issue.keys.map((k) => (key ? `${key}.${k}` : k));
    const first = issue.keys[0] ?? "";
    const near = nearestKey(issue.path.map(String), first);
    return new ConfigError(file, names[0] ?? key, `is not a known key${near}${names.length > 1 ? ` (nor ${names.slice(1).join(", ")})` : ""}`);
  }
  if (issue.code === "invalid_value") {
    return new ConfigError(file, key, `must be one of ${issue.values.map(String).join(", ")}`);
  }
  if (issue.code === "invalid_type") {
    return new ConfigError(file, key, `must be ${describeType(issue.expected)}`);
  }
  return new ConfigError(file, key, issue.message);
}

function describeType(expected: string): string {
  const names: Record<string, string> = {
    string: "a string",
    number: "a number",
    boolean: "true or false",
    array: "a list",
    object: "a mapping",
    record: "a mapping",
  };
  return names[expected] ?? expected;
}
