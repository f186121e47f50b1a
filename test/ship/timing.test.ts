import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { waitMs } from "../../src/timing.ts";

test("a wait is the product's own unless its LEMBAS_TEST_* variable sets a positive whole number of ms", () => {
  expect(waitMs("MODEL_PROBE_MS", 15_000, {})).toBe(15_000);
  expect(waitMs("MODEL_PROBE_MS", 15_000, { LEMBAS_TEST_MODEL_PROBE_MS: "1000" })).toBe(1000);
  for (const bad of ["", "0", "-5", "1.5", "soon"]) expect(waitMs("MODEL_PROBE_MS", 15_000, { LEMBAS_TEST_MODEL_PROBE_MS: bad })).toBe(15_000);
});

test("LEMBAS_TEST_* variables are read in src/timing.ts and nowhere else", () => {
  const src = join(import.meta.dir, "../../src");
  const readers: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith(".ts") && path !== join(src, "timing.ts") && readFileSync(path, "utf8").includes("LEMBAS_TEST_")) readers.push(path);
    }
  };
  walk(src);
  expect(readers).toEqual([]);
});
