import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
/** No module grows past this: when one would, a part of it is taken out into a module of its own. */
const MAX_LINES = 500;

test(`no module of src/ is longer than ${MAX_LINES} lines`, () => {
  const long = [...new Bun.Glob("src/**/*.ts").scanSync({ cwd: ROOT })]
    .map((file) => ({ file, lines: readFileSync(join(ROOT, file), "utf8").split("\n").length - 1 }))
    .filter((f) => f.lines > MAX_LINES)
    .map((f) => `${f.file}: ${f.lines} lines`);
  expect(long).toEqual([]);
});
