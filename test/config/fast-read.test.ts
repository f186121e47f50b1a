/**
 * config.yaml's fast reader (config/fast-read.ts) against its schema: for a file it takes, it returns
 * what the schema returns, byte for byte; a file the schema refuses it never takes (the schema then
 * says what is wrong). A corpus of files, and each of their values changed to values of other shapes.
 */
import { expect, test } from "bun:test";
import { z } from "zod";
import { FAST_READ_KEYS, readConfigFast } from "../../src/config/fast-read.ts";
import { Config } from "../../src/config/schema.ts";

const FULL = {
  model: "local/qwen",
  effort: "high",
  mode: "auto",
  connections: {
    local: {
      base_url: "http://127.0.0.1:11434/v1",
      api: "messages",
      api_key_env: "LOCAL_KEY",
      api_key: "sk-1",
      context: 32768,
      context_length: 8192,
      max_output: 4096,
      supports_tools: true,
      text_tool_calls: false,
      reasoning: true,
      idle_timeout: 90.5,
      headers: { "X-Team": "a" },
      body: { options: { num_ctx: 8192 }, n: [1, 2] },
      vision: false,
    },
    "open.router_2": { base_url: "https://openrouter.ai/api/v1" },
  },
  remote: { roots: ["~/work", "/srv", "~"], max_mode: "auto", require_trust: false, terminal: true, terminal_integration: false, approval_timeout: 60 },
  protected: ["secrets/**"],
  tools: { env_passthrough: ["GITHUB_TOKEN"] },
  fetch: { allow_private: ["docs.local"] },
  mcp: {},
  mcp_timeouts: { start: 2.5, call: 30 },
  hooks: {},
  permissions: { allow: ["Bash(npm test)", "Edit(src/**)"], ask: ["WebFetch(domain:example.com)"], deny: ["Read(~/.ssh/**)", "mcp__notes"] },
  embedding: "local/nomic",
  library: "local",
  personality: "concise",
  personality_custom: "Be kind.",
  instructions: "Use tabs.",
  theme: "light",
  tui: { vim: true, notify: "bell" },
};

const TAKEN: Record<string, unknown>[] = [
  {},
  FULL,
  { model: "test/test-model", mode: "auto", connections: { test: { base_url: "http://127.0.0.1:4000/v1" } } },
  { model: null, embedding: null, library: null, personality: null, personality_custom: null, instructions: null },
  { remote: {}, tools: {}, fetch: { allow_private: true }, mcp_timeouts: {}, permissions: {}, tui: {} },
  { connections: {}, protected: [], personality: "custom" },
];

/** Values of every shape the schema may see, for each key of the corpus in turn. */
const OTHERS: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  3601,
  2 ** 60,
  Number.POSITIVE_INFINITY,
  Number.NaN,
  "",
  " ",
  "x",
  "edit",
  "custom",
  "nobody",
  " http://127.0.0.1/v1",
  "http://a\tb/v1",
  "not a url",
  "~/work",
  "relative/path",
  "Bash(",
  "1BAD",
  [],
  [""],
  ["x"],
  ["~/a", "b"],
  [1],
  {},
  { base_url: "http://x/v1" },
  { unknown: 1 },
  { "": "x" },
  { a: 1 },
];

/** The schema's output as JSON, or null when it refuses the file. */
function schemaSays(raw: Record<string, unknown>): string | null {
  const result = Config.safeParse(structuredClone(raw));
  return result.success ? JSON.stringify(result.data) : null;
}

function fastSays(raw: Record<string, unknown>): string | null {
  const read = readConfigFast(structuredClone(raw));
  return read === null ? null : JSON.stringify(read);
}

/** Every path of plain values in a mapping: ["connections", "local", "base_url"], … */
function paths(value: unknown, at: string[] = []): string[][] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [at];
  return [at, ...Object.entries(value).flatMap(([key, inner]) => paths(inner, [...at, key]))];
}

function withValue(raw: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(raw);
  let node: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  const last = path.at(-1);
  if (last !== undefined) node[last] = value;
  return copy;
}

test("the files it takes read as the schema reads them, key order included", () => {
  for (const raw of TAKEN) expect([raw, fastSays(raw)]).toEqual([raw, schemaSays(raw)]);
});

test("with any value changed, it takes the file only as the schema does, and never one the schema refuses", () => {
  let taken = 0;
  let left = 0;
  for (const base of [FULL, TAKEN[2] ?? {}]) {
    for (const path of paths(base)) {
      if (path.length === 0) continue;
      for (const value of OTHERS) {
        const raw = withValue(base, path, value);
        const fast = fastSays(raw);
        if (fast === null) {
          left++;
          continue;
        }
        taken++;
        expect([path.join("."), value, fast]).toEqual([path.join("."), value, schemaSays(raw)]);
      }
    }
  }
  // Both sides are exercised: the corpus is not all refused, nor all taken.
  expect(taken).toBeGreaterThan(50);
  expect(left).toBeGreaterThan(500);
});

test("a key it does not know, MCP servers, language servers, a web_search tool and hooks are left to the schema", () => {
  expect(readConfigFast({ model: "a/b", lsp_servers: {} })).toBeNull();
  expect(readConfigFast({ lsp: { zig: { command: "zls", extensions: ["zig"] } } })).toBeNull();
  expect(readConfigFast({ web_search: "mcp__web__search", mcp: {} })).toBeNull();
  expect(readConfigFast({ connections: { a: { base_url: "http://x/v1", timeout: 3 } } })).toBeNull();
  expect(readConfigFast({ mcp: { notes: { command: "notes-server" } } })).toBeNull();
  expect(readConfigFast({ hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] } })).toBeNull();
});

test("every key it knows is one of the schema's, at each mapping", () => {
  const shapeAt = (path: string): Record<string, z.ZodType> => {
    let schema: z.ZodType = Config;
    for (const part of path.split(".").filter(Boolean)) {
      while (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault || schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) schema = schema.unwrap() as z.ZodType;
      if (schema instanceof z.ZodObject) schema = (schema.shape as Record<string, z.ZodType>)[part] as z.ZodType;
      else if (schema instanceof z.ZodRecord) schema = schema.valueType as z.ZodType;
    }
    while (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault || schema instanceof z.ZodOptional) schema = schema.unwrap() as z.ZodType;
    return schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
  };
  for (const [path, keys] of Object.entries(FAST_READ_KEYS)) {
    const known = Object.keys(shapeAt(path));
    expect([path, [...keys].filter((key) => !known.includes(key))]).toEqual([path, []]);
  }
});
