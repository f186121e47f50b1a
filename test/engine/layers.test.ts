import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");

/**
 * Which part of src/ may import which: the design's flow (DESIGN.md, "Layers"), from the top down.
 * A folder or a file at src/'s top imports only what sits in a layer below its own, never beside
 * or above it; so no two folders import each other, and nothing but index.ts imports cli/. Every
 * folder and top-level file of src/ has its place here: a new one gets a row, or this test fails.
 */
const LAYERS: readonly (readonly string[])[] = [
  ["index.ts"], // the entry: the command line, or serve --stdio
  ["cli"], // parses the command line and prints
  ["tui", "service"], // the terminal; the device service (the terminal speaks to it over its socket only)
  ["app"], // the composition root the front ends share: the context, the engine, what two front ends need
  ["link"], // login, discovery, the dialer (handed what it routes to)
  ["acp"], // ACP and the _lembas handlers, event mapping
  ["front", "transcript"], // the one way in for a prompt; a session as the front ends show it (history, transcript, tool titles)
  ["engine"], // sessions, turns, permissions, hooks, undo, compaction, helpers
  ["code-index"], // the project's files searched by meaning (code_search), on the library's embeddings and hybrid search
  ["library"], // the library: the device's own, or the account's over the instance's MCP
  ["mcp", "account", "lsp"], // services the engine uses (lsp: the language servers)
  ["tools"], // one file per tool, each given its operations
  ["project"], // attach, files and their index, commands, skills, agents, protected paths
  ["model"], // dialects, refs, the streaming clients
  ["store", "config"], // SQLite rows; config.yaml
  ["bus", "rpc", "terminal"],
  ["jit-policy.ts"], // when the start's JIT thresholds end (the entry, the service, the terminal say it)
  ["controls.ts", "home.ts", "images.ts", "libc.ts", "paths.ts", "pause.ts", "processes.ts", "real-path.ts", "plural.ts", "lazy.ts", "result-bound.ts", "stderr-tail.ts", "suggest.ts", "timing.ts", "until-aborted.ts", "version.ts"],
  ["errors.ts", "../package.json"], // package.json: outside src/, where version.ts reads the version
];

/**
 * Arrows against the flow allowed while they are being removed, named file → file: none today.
 * One may be listed only while a move is under way; the test fails while a fixed one is listed.
 */
const KNOWN: readonly string[] = [];

const LAYER_OF = new Map(LAYERS.flatMap((names, depth) => names.map((name) => [name, depth] as const)));

/** The folder or top-level file of src/ a path is in; outside src/, the path from src/ itself. */
function partOf(path: string): string {
  const rel = relative(SRC, path);
  return rel.startsWith("..") ? rel : (rel.split("/")[0] ?? rel);
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Every import (static, dynamic, re-export) of one part of src/ by another: "from/file.ts → to/file.ts". */
function crossImports(): { from: string; to: string; arrow: string }[] {
  const out: { from: string; to: string; arrow: string }[] = [];
  for (const file of files(SRC)) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]+)"/g)) {
      const target = resolve(file, "..", m[1] ?? "");
      const from = partOf(file);
      const to = partOf(target);
      if (from !== to) out.push({ from, to, arrow: `${relative(SRC, file)} → ${relative(SRC, target)}` });
    }
  }
  return out;
}

/** Whether `from` may import `to`: `to` sits in a layer below `from`'s. */
function mayImport(from: string, to: string): boolean {
  const a = LAYER_OF.get(from);
  const b = LAYER_OF.get(to);
  return a !== undefined && b !== undefined && b > a;
}

describe("layers", () => {
  test("every folder and file at src/'s top has its place in the layers, once", () => {
    const parts = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory() || e.name.endsWith(".ts"))
      .map((e) => e.name);
    expect(parts.filter((name) => !LAYER_OF.has(name))).toEqual([]);
    const names = LAYERS.flat();
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });

  test("nothing imports a folder beside or above its own (but for the arrows being removed)", () => {
    const wrong = crossImports()
      .filter(({ from, to, arrow }) => !mayImport(from, to) && !KNOWN.includes(arrow))
      .map(({ arrow }) => arrow);
    expect(wrong).toEqual([]);
  });

  test("every arrow listed as being removed is still there: one fixed leaves the list", () => {
    const arrows = new Set(crossImports().map(({ arrow }) => arrow));
    expect(KNOWN.filter((arrow) => !arrows.has(arrow))).toEqual([]);
  });

  test("an arrow listed as being removed is one against the flow", () => {
    const allowed = crossImports().filter(({ from, to, arrow }) => KNOWN.includes(arrow) && mayImport(from, to));
    expect(allowed.map(({ arrow }) => arrow)).toEqual([]);
  });
});
