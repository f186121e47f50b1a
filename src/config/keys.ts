import { z } from "zod";
import { didYouMean } from "../suggest.ts";
import { Config } from "./schema.ts";

type Walk = { schema: z.ZodType; named: string[] } | { problem: string };

/** What config.yaml takes at a dotted key, as the schema says: its schema, or the sentence that says it takes no such key. */
function walk(parts: readonly string[]): Walk {
  let schema: z.ZodType = Config;
  const named: string[] = [];
  for (const part of parts) {
    schema = unwrap(schema);
    if (schema instanceof z.ZodObject) {
      const shape = schema.shape as Record<string, z.ZodType>;
      const next = shape[part];
      if (!next) return { problem: `is not a known key${didYouMean(part, Object.keys(shape), (k) => [...named, k].join("."))}` };
      schema = next;
    } else if (schema instanceof z.ZodRecord) {
      schema = schema.valueType as z.ZodType;
    } else {
      return { problem: `is not a known key: ${named.join(".")} is not a mapping` };
    }
    named.push(part);
  }
  return { schema, named };
}

function unwrap(schema: z.ZodType): z.ZodType {
  let inner = schema;
  // A lazy one (the MCP servers', the hooks'): made when a key under it is looked at.
  while (inner instanceof z.ZodDefault || inner instanceof z.ZodPrefault || inner instanceof z.ZodOptional || inner instanceof z.ZodNullable || inner instanceof z.ZodLazy) {
    inner = inner.unwrap() as z.ZodType;
  }
  return inner;
}

/** Why a dotted key is not one config.yaml takes ("is not a known key (did you mean model?)"), or null when it is one. */
export function unknownKey(key: string): string | null {
  const parts = key.split(".").filter(Boolean);
  if (parts.length === 0) return "is not a key";
  const found = walk(parts);
  return "problem" in found ? found.problem : null;
}

/** " (did you mean remote.max_mode?)" for a key the mapping at `path` does not take, or nothing. */
export function nearestKey(path: readonly string[], key: string): string {
  const found = walk(path);
  if ("problem" in found) return "";
  const schema = unwrap(found.schema);
  if (!(schema instanceof z.ZodObject)) return "";
  return didYouMean(key, Object.keys(schema.shape), (k) => [...path, k].join("."));
}
