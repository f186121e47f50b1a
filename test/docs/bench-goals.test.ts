import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BENCHES } from "../../bench/bench-list.ts";
import { GOALS, judge, judgeBench } from "../../bench/goals.ts";

const ROOT = join(import.meta.dir, "../..");

/** The benches bench/README.md's table names, in its first column (`name.ts`). */
function tableBenches(): string[] {
  const readme = readFileSync(join(ROOT, "bench/README.md"), "utf8");
  return [...readme.matchAll(/^\| `([\w-]+)\.ts` \|/gm)].map((m) => m[1] as string);
}

describe("the benches' goals (bench/goals.ts, judged by bench/all.ts)", () => {
  test("every bench of bench/README.md's table has its goals in bench/goals.ts, and no other", () => {
    expect(Object.keys(GOALS).sort()).toEqual(tableBenches().sort());
  });

  test("bench/all.ts runs every bench with goals (it refuses to start otherwise)", () => {
    const run = new Set(BENCHES.map((b) => b.name));
    expect(Object.keys(GOALS).filter((name) => !run.has(name))).toEqual([]);
  });

  test("every bench with goals is a file bench/all.ts can run", () => {
    expect(Object.keys(GOALS).filter((name) => !existsSync(join(ROOT, "bench", `${name}.ts`)))).toEqual([]);
  });

  test("every bench names itself in its line (all.ts finds the line by its `bench` field)", () => {
    const unnamed = Object.keys(GOALS).filter((name) => !readFileSync(join(ROOT, "bench", `${name}.ts`), "utf8").includes(`bench: "${name}"`));
    expect(unnamed).toEqual([]);
  });

  test("a goal is met or not by the figure at its path, against a number or another figure", () => {
    const line = { ratio: 0.79, nested: { ms: 12 }, other: 10, a: 5, b: 3 };
    expect(judge(line, { figure: "ratio", op: ">=", limit: 0.8 })).toEqual({ figure: 0.79, limit: 0.8, met: false });
    expect(judge(line, { figure: "nested.ms", op: "<=", limit: { figure: "other", times: 1.5 } })).toEqual({ figure: 12, limit: 15, met: true });
    expect(judge(line, { figure: "nested.ms", op: "<=", limit: { figure: "other", minus: "b" } }).met).toBe(false);
    expect(judge(line, { figure: "b", op: "<=", limit: { least: ["a", "missing", "other"] } })).toEqual({ figure: 3, limit: 5, met: true });
    expect(judge(line, { figure: "b", op: "<", limit: 3 }).met).toBe(false);
  });

  test("a figure the line lacks, or a bench that printed no line, meets no goal", () => {
    expect(judge({ ratio: null }, { figure: "ratio", op: "<=", limit: 1 })).toEqual({ figure: null, limit: 1, met: false });
    const none = judgeBench("engine", null);
    expect(Object.keys(none).length).toBeGreaterThan(0);
    expect(Object.values(none).every((j) => !j.met)).toBe(true);
  });
});

test("the session/load memory goal is judged from 2,000 turns to 6,000, against the texts' growth there", () => {
  // As bench/session-load.ts measured it: the step from 200 to 2,000 turns is the collector's allowance, once.
  const flat = { long_load_text_mb: 6.6, longest_load_text_mb: 19.82, load_rss_growth_mb: 2.26 };
  expect(judgeBench("acp-stdio", flat).load_rss_growth).toEqual({ figure: 2.26, limit: 13.22, met: true });
  // A replay that kept what it sent grows by more than the text.
  expect(judgeBench("acp-stdio", { ...flat, load_rss_growth_mb: 14 }).load_rss_growth?.met).toBe(false);
});
