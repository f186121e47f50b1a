import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

// The engine is put together in one place, src/app/, which every front end uses (lembas run,
// serve, serve --stdio, the terminal); what two front ends share sits there or lower, never in
// cli/ (parsing and printing) nor in another front end.
const SRC = resolve(import.meta.dir, "../../src");

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Every relative import of every file under src/, as "file → the folder of src/ it points into". */
function arrows(): { file: string; to: string }[] {
  return files(SRC).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]+)"/g)].map((m) => ({
      file: relative(SRC, file),
      to: relative(SRC, resolve(file, "..", m[1] ?? "")).split("/")[0] ?? "",
    })),
  );
}

const folderOf = (file: string): string => (file.includes("/") ? (file.split("/")[0] ?? "") : "");

describe("one composition root", () => {
  test("nothing but the entry point imports cli/", () => {
    const wrong = arrows().filter((a) => a.to === "cli" && folderOf(a.file) !== "cli" && a.file !== "index.ts");
    expect(wrong.map((a) => a.file)).toEqual([]);
  });

  test("app/ imports no front end", () => {
    const fronts = ["cli", "tui", "service", "link", "acp", "rpc", "front", "terminal"];
    const wrong = arrows().filter((a) => folderOf(a.file) === "app" && fronts.includes(a.to));
    expect(wrong.map((a) => `${a.file} → ${a.to}/`)).toEqual([]);
  });

  test("the terminal imports nothing of the service: what both use is in app/", () => {
    const wrong = arrows().filter((a) => folderOf(a.file) === "tui" && a.to === "service");
    expect(wrong.map((a) => a.file)).toEqual([]);
  });

  test("the engine is made in app/start-engine.ts alone, for every front end", () => {
    const makers = files(SRC)
      .filter((file) => !relative(SRC, file).startsWith("engine/"))
      .filter((file) => /\bnew Engine\(/.test(readFileSync(file, "utf8")))
      .map((file) => relative(SRC, file));
    expect(makers).toEqual(["app/start-engine.ts"]);
    for (const front of ["cli/run.ts", "cli/stdio-engine.ts", "service/daemon.ts", "tui/runtime.ts"]) {
      // Imported or loaded on demand (`serve --stdio` loads it once config.yaml is read).
      expect([front, /(from |import\()"\.\.\/app\/start-engine\.ts"/.test(readFileSync(join(SRC, front), "utf8"))]).toEqual([front, true]);
    }
  });
});
