import { describe, expect, test } from "bun:test";
import { align, alignBytes } from "../../src/project/align.ts";
import { rank } from "../../src/project/fuzzy.ts";
import { type Prepared, prepare } from "../../src/project/prepared.ts";

// The search's shortcuts (a pass stopping at the first row that cannot get in, the bound from the
// query's pairs of characters, the basenames scored from a byte buffer) must find exactly what
// scoring every entry finds.

const WORDS = ["user", "service", "button", "index", "config", "loader", "parser", "query", "header", "Main", "api", "view", "cfg", "hdr", "x2"];
const JOINS = ["", "-", "_", ".", ""];

function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a * 1664525 + 1013904223) >>> 0;
    return a / 4294967296;
  };
}

function generated(count: number, seed: number): string[] {
  const random = seeded(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const word = () => {
    const w = pick(WORDS);
    return random() < 0.3 ? w.charAt(0).toUpperCase() + w.slice(1) : w;
  };
  const out = new Set<string>();
  while (out.size < count) {
    const dirs = Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(WORDS).toLowerCase());
    const name = Array.from({ length: 1 + Math.floor(random() * 3) }, word).join(pick(JOINS));
    out.add(`${dirs.join("/")}/${name}.${pick(["ts", "md", "json", "tsx"])}`);
  }
  return [...out];
}

function ranked(prep: Prepared, query: string, limit: number): string[] {
  prep.trail = [];
  return rank(prep, query, { limit }).map((r) => `${prep.paths[r.id]} ${r.score}`);
}

describe("the search's shortcuts", () => {
  const paths = generated(6000, 11);
  const queries = ["usr", "cfg", "qry", "hdr", "usrsvc", "cfgldr", "svcq", "mh", "MH", "Hdr", "btnidx", "x2", "ldr.ts", "cfg/hdr", "user/qry", "prsr", "uqvx"];

  test("the best few, with their scores, are the first of scoring every entry", () => {
    const prep = prepare(paths, new Uint8Array(paths.length));
    for (const query of queries) {
      const all = ranked(prep, query, 1_000_000);
      for (const limit of [1, 5, 20]) expect({ query, limit, top: ranked(prep, query, limit) }).toEqual({ query, limit, top: all.slice(0, limit) });
    }
  });

  test("the prefix matches are the basenames that start with the query, whatever the case of their second character", () => {
    const names = ["cOnfig.ts", "config.ts", "CONFIG.md", "Config.json", "c", "co", "cfg", "c.ts", "über.ts", "Über.md", "cö.ts", "CÖ.md", "x", "xc", "coNFIG"];
    const list = names.flatMap((name) => [`src/${name}`, `lib/deep/er/${name}`]);
    const prep = prepare(list, new Uint8Array(list.length));
    for (const query of ["c", "co", "con", "conf", "cO", "CO", "Co", "cf", "c.", "ü", "üb", "Üb", "cö", "CÖ", "xc", "x"]) {
      const sensitive = query !== query.toLowerCase();
      const want = list.filter((path) => {
        const name = path.slice(path.lastIndexOf("/") + 1);
        return (sensitive ? name : name.toLowerCase()).startsWith(query);
      });
      // Scores a kind of match apart: 300,000 and up for a basename starting with the query.
      const got = ranked(prep, query, list.length).filter((line) => Number(line.slice(line.lastIndexOf(" ") + 1)) > 250_000);
      expect({ query, got: got.map((line) => line.slice(0, line.lastIndexOf(" "))).sort() }).toEqual({ query, got: want.sort() });
    }
  });

  test("a basename's score from its bytes is its score from the path's string", () => {
    const bytes = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
    for (const path of paths.slice(0, 2000)) {
      const base = path.lastIndexOf("/") + 1;
      const name = path.slice(base);
      for (const query of queries) {
        const sensitive = query !== query.toLowerCase();
        const codes = Int32Array.from(query, (c) => c.charCodeAt(0));
        const text = sensitive ? path : path.toLowerCase();
        const fromString = align(text, path, base, path.length, codes);
        const fromBytes = alignBytes(bytes(sensitive ? name : name.toLowerCase()), bytes(name), 0, name.length, codes);
        expect({ path, query, score: fromBytes }).toEqual({ path, query, score: fromString });
      }
    }
  });
});
