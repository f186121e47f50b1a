import type { z } from "zod";
import { ConfigError } from "./errors.ts";
import { nearestKey } from "./keys.ts";
import { Config } from "./schema.ts";

/**
 * How config.yaml is checked: once or twice a process, so without the code zod writes and compiles
 * for an object's first parse (its "fast path"), which costs more than the one parse it speeds up
 * (bench/START.md). The result and the issues are the same.
 */
const ONCE: z.core.ParseContext<z.core.$ZodIssue> = { jitless: true };

/** config.yaml's mapping checked by its schema: the config, or a ConfigError naming the key that is wrong. */
export function checkConfig(file: string, raw: Record<string, unknown>): Config {
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
