import { existsSync, readFileSync } from "node:fs";
import type { z } from "zod";
import { ConfigError } from "./errors.ts";
import { Config } from "./schema.ts";

/** Reads config.yaml; a missing file is the defaults, a bad one a ConfigError naming the key. */
export function loadConfig(file: string): Config {
  if (!existsSync(file)) return Config.parse({});
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
    throw new ConfigError(file, "", `is not valid YAML (${error instanceof Error ? error.message : String(error)})`);
  }
}

export function validateConfig(file: string, raw: unknown): Config {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ConfigError(file, "", "must be a mapping of keys to values");
  }
  const result = Config.safeParse(raw);
  if (result.success) return result.data;
  throw issueToError(file, result.error.issues[0]);
}

function issueToError(file: string, issue: z.core.$ZodIssue | undefined): ConfigError {
  if (!issue) return new ConfigError(file, "", "is not valid");
  const key = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    const names = issue.keys.map((k) => (key ? `${key}.${k}` : k));
    return new ConfigError(file, names[0] ?? key, `is not a known key${names.length > 1 ? ` (nor ${names.slice(1).join(", ")})` : ""}`);
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
