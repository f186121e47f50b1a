import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { bashTool } from "../../src/tools/bash.ts";
import { bwrapSandbox } from "../support/tools.ts";
import { cleanupTempDirs, makeContext, run, tempDir } from "./context.ts";

afterAll(cleanupTempDirs);

const bwrap = bwrapSandbox("the tests of what a command's script reads like in the sandbox");

/** What COMMAND prints through bash, in the bwrap sandbox and without one. */
async function inAndOut(command: string): Promise<{ sandboxed: string; bare: string }> {
  const dir = tempDir();
  const root = join(dir, "project");
  const state = join(dir, "state");
  mkdirSync(root);
  mkdirSync(state);
  const sandboxed = (await run(bashTool, { command }, makeContext({ root, hidden: [state] }).ctx)).output;
  const bare = (await run(bashTool, { command }, makeContext({ root }).ctx)).output;
  return { sandboxed, bare };
}

describe.skipIf(!bwrap)("a command's script in the bwrap sandbox", () => {
  test("its line numbers are those it has without the sandbox: $LINENO, and where a syntax error is said to be", async () => {
    const lines = await inAndOut("echo $LINENO\necho $LINENO");
    expect(lines.sandboxed).toBe(lines.bare);
    const error = await inAndOut("echo before\nif then");
    expect(error.sandboxed).toBe(error.bare);
    expect(error.sandboxed).toStartWith("before\n");
  });
});

describe("a command line no shell can take", () => {
  test("a NUL character is said as such, in the sandbox and without it, not as an argument of lembas's own argv", async () => {
    const said = await inAndOut("echo a\0b");
    const sentence = "The command could not be run: it contains a NUL character, which no command line can hold.";
    expect(said.bare).toBe(sentence);
    if (bwrap) expect(said.sandboxed).toBe(sentence);
  });
});
