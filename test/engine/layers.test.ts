import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

// Data flows one way: the engine knows no front end, and the model layer, MCP and the store sit
// below it (the engine imports mcp/'s types, never the other way round).
const SRC = resolve(import.meta.dir, "../../src");
const FRONT_ENDS = ["cli", "acp", "link", "tui", "service", "front", "rpc"];
const RULES: Record<string, string[]> = {
  engine: FRONT_ENDS,
  model: [...FRONT_ENDS, "engine", "tools"],
  store: [...FRONT_ENDS, "engine", "tools"],
  tools: FRONT_ENDS,
  library: [...FRONT_ENDS, "engine", "tools"],
  mcp: [...FRONT_ENDS, "engine", "library"],
  account: [...FRONT_ENDS, "library", "mcp"],
  bus: FRONT_ENDS,
};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

function importedDirs(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]+)"/g)) {
    const target = relative(SRC, resolve(file, "..", m[1] ?? ""));
    out.push(target.split("/")[0] ?? "");
  }
  return out;
}

describe("layers", () => {
  for (const [layer, forbidden] of Object.entries(RULES)) {
    test(`${layer}/ imports none of ${forbidden.join(", ")}`, () => {
      const wrong: string[] = [];
      for (const file of files(join(SRC, layer))) {
        for (const dir of importedDirs(file)) {
          if (forbidden.includes(dir)) wrong.push(`${relative(SRC, file)} → ${dir}/`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }
});
