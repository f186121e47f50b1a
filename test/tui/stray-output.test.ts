import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { catchStrayOutput } from "../../src/tui/stray-output.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test("while the screen is up, console output goes to the log file and one line on screen, never to the terminal", () => {
  const dir = mkdtempSync(join(tmpdir(), "lembas-stray-"));
  dirs.push(dir);
  const said: string[] = [];
  const before = console.error;
  const restore = catchStrayOutput(join(dir, "logs"), (line) => said.push(line));
  try {
    console.error("a listener failed:", new Error("boom"));
    console.warn("first line\nsecond line");
  } finally {
    restore();
  }
  expect(console.error).toBe(before);
  expect(said).toEqual([expect.stringContaining("a listener failed: Error: boom"), "first line"]);
  const log = readFileSync(join(dir, "logs", "terminal.log"), "utf8");
  expect(log).toContain("boom");
  expect(log).toContain("second line");
});
