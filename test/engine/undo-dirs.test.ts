import { afterEach, beforeEach, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rewoundLine } from "../../src/tui/commands/turn-pickers.ts";
import { type EngineHarness, engineHarness, step } from "../support/engine.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());

const bash = (command: string) => step({ toolCalls: [{ name: "bash", arguments: { command } }] });
const write = (path: string, content: string) => step({ toolCalls: [{ name: "write", arguments: { path, content } }] });
const at = (path: string) => join(h.project, path);

test("undo removes the empty directories a command and a write made, deepest first, and keeps one that was there before", async () => {
  mkdirSync(at("src"));
  const session = await h.session({ mode: "auto" });
  h.model.push(bash("mkdir -p build/out && echo x > build/out/f.txt"), step({ text: "done" }));
  await session.prompt({ text: "build" });
  h.model.push(write("src/deep/er/new.ts", "x\n"), step({ text: "done" }));
  await session.prompt({ text: "write" });

  const written = session.undo();
  expect(written?.files).toEqual(["src/deep/er/new.ts"]);
  expect(written?.removedDirs).toEqual(["src/deep/er", "src/deep"]);
  expect(existsSync(at("src/deep"))).toBe(false);
  // Empty, but there before the turn: it stays.
  expect(statSync(at("src")).isDirectory()).toBe(true);

  const built = session.undo();
  expect(built).toMatchObject({ files: ["build/out/f.txt"], skipped: [], removedDirs: ["build/out", "build"] });
  expect(readdirSync(h.project).sort()).toEqual(["src"]);
});

test("rewind puts back a directory a command moved or removed, even empty, with its mode, and removes the one it moved it to", async () => {
  mkdirSync(at("docs/empty"), { recursive: true });
  writeFileSync(at("docs/a.md"), "doc a\n");
  mkdirSync(at("private"));
  chmodSync(at("private"), 0o700);
  const session = await h.session({ mode: "auto" });
  h.model.push(bash("mv docs moved && rm -r private"), step({ text: "done" }));
  await session.prompt({ text: "first" });
  // A later turn made a directory the first one's pass does not know: the later pass removes it.
  h.model.push(bash("mkdir -p later/x && mkdir private"), step({ text: "done" }));
  await session.prompt({ text: "second" });

  const [first] = session.messages().filter((m) => m.role === "user");
  const rewound = session.rewind(first?.turnId ?? "", "both");
  expect(rewound.skipped).toEqual([]);
  expect([...(rewound.putBackDirs ?? [])].sort()).toEqual(["docs", "docs/empty"]);
  expect([...(rewound.removedDirs ?? [])].sort()).toEqual(["later", "later/x", "moved", "moved/empty"]);
  expect(statSync(at("docs/empty")).isDirectory()).toBe(true);
  expect(existsSync(at("docs/a.md"))).toBe(true);
  expect(statSync(at("private")).mode & 0o777).toBe(0o700);
  expect(readdirSync(h.project).sort()).toEqual(["docs", "private"]);
  // The terminal's line names them.
  expect(rewoundLine(rewound)).toContain("put back the directories docs, docs/empty; removed the empty directories later/x, later, moved/empty, moved)");
});

test("a directory the turn made that the person filled since stays, and the undo says why", async () => {
  const session = await h.session({ mode: "auto" });
  h.model.push(bash("mkdir -p out/gen && echo x > out/gen/f.txt"), step({ text: "done" }));
  await session.prompt({ text: "gen" });
  writeFileSync(at("out/mine.txt"), "the person's\n");

  const undone = session.undo();
  expect(undone?.files).toEqual(["out/gen/f.txt"]);
  expect(undone?.removedDirs).toEqual(["out/gen"]);
  expect(undone?.skipped).toEqual([{ path: "out/", why: expect.stringContaining("it still holds files the undo did not remove") }]);
  expect(readdirSync(at("out"))).toEqual(["mine.txt"]);
});

test("a directory the turn made that is a symlink now is left, and what it leads to is never touched", async () => {
  const elsewhere = mkdtempSync(join(tmpdir(), "lembas-elsewhere-"));
  try {
    mkdirSync(join(elsewhere, "empty"));
    const session = await h.session({ mode: "auto" });
    h.model.push(bash("mkdir -p link/empty"), step({ text: "done" }));
    await session.prompt({ text: "made" });
    rmSync(at("link"), { recursive: true });
    symlinkSync(elsewhere, at("link"));

    const undone = session.undo();
    expect(undone?.removedDirs).toBeUndefined();
    expect(undone?.skipped.map((s) => s.path).sort()).toEqual(["link/", "link/empty/"]);
    expect(lstatSync(at("link")).isSymbolicLink()).toBe(true);
    expect(statSync(join(elsewhere, "empty")).isDirectory()).toBe(true);
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
});

test("a file a command replaced with a directory comes back once that directory, emptied, is removed", async () => {
  writeFileSync(at("out"), "a file\n");
  const session = await h.session({ mode: "auto" });
  h.model.push(bash("rm out && mkdir -p out/sub && echo x > out/sub/x"), step({ text: "done" }));
  await session.prompt({ text: "dir" });

  const undone = session.undo();
  expect(undone?.skipped).toEqual([]);
  expect([...(undone?.files ?? [])].sort()).toEqual(["out", "out/sub/x"]);
  expect(undone?.removedDirs).toEqual(["out/sub", "out"]);
  expect(readFileSync(at("out"), "utf8")).toBe("a file\n");
});
