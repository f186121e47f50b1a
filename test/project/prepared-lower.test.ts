import { describe, expect, test } from "bun:test";
import { rank } from "../../src/project/fuzzy.ts";
import { lowercase, prepare } from "../../src/project/prepared.ts";

// The prepared list lowercases an ASCII path only when a search first reads it: what it then
// gives, and the basename's first character it keeps from the start, must be what lowercasing
// every path as it was listed gives.

const paths = ["src/Button.tsx", "src/button.ts", "README.md", "a/B", "Z", "lib/UserService/Index.TS", "über/Ärger.ts", "x/\u212Aelvin.md", "docs/", "ΣΑΣ/Σ.md", "a b/C d.txt", "@scope/Pkg-Name/_Under.ts"];

describe("a prepared list's lowercased paths", () => {
  test("are each path lowercased, and its basename's first character lowercased", () => {
    const prep = prepare(paths, new Uint8Array(paths.length));
    const bases = [...prep.baseFirst];
    expect(prep.lower).toEqual(paths.map(lowercase));
    expect(bases).toEqual(paths.map((path, i) => lowercase(path).charCodeAt(prep.base[i] ?? 0) || 0));
    // Asked again: the same, lowercased once.
    expect(prep.lower).toEqual(paths.map(lowercase));
  });

  test("are what a search reads before any other use", () => {
    const prep = prepare(paths, new Uint8Array(paths.length));
    expect(rank(prep, "button", { limit: 5 }).map((r) => paths[r.id])).toEqual(["src/button.ts", "src/Button.tsx"]);
    expect(rank(prep, "index.ts", { limit: 5 }).map((r) => paths[r.id])).toEqual(["lib/UserService/Index.TS"]);
  });
});
