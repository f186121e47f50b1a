/** The terminal shows a file's errors from its language server in the edit's block, and the turn's one line of them. */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { step } from "../support/engine.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";
import { trustIn } from "../support/trust.ts";

const suite = screenSuite({ ready: "test/test-model" });
const FAKE = resolve(import.meta.dir, "../support/fake-lsp.ts");

describe.skipIf(!HAVE_TMUX)("a language server's errors in the terminal", () => {
  test("an edit's block lists the file's errors under its diff; the turn ends with one line of them", async () => {
    const { box, model } = suite;
    const lsp = `lsp:\n  fake:\n    command: ${process.execPath}\n    args: ${JSON.stringify([FAKE, "ok"])}\n    extensions: [fake]\n`;
    writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n${lsp}`);
    trustIn(box, box.project);
    model.push(step({ toolCalls: [{ name: "write", arguments: { path: "a.fake", content: "fine\nERR here\nERR there\n" } }] }), step({ text: "all done" }));
    const screen = await suite.open(["--mode", "edit"], { env: { LEMBAS_TEST_LSP_WAIT_MS: "5000" } });
    await screen.type("write it", "Enter");
    await screen.waitFor("all done");
    // The turn's line comes once the server was asked again at the turn's end.
    const shown = await screen.waitFor("2 errors in a.fake");
    const lines = shown.split("\n").map((l) => l.trimEnd());
    const at = lines.findIndex((l) => l.startsWith("● Write a.fake"));
    expect(at).toBeGreaterThanOrEqual(0);
    const block = lines.slice(at + 1, at + 8);
    expect(block).toContain("  ⚠ a.fake:2:1 error bad thing on line 2");
    expect(block).toContain("    a.fake:3:1 error bad thing on line 3");
    expect(lines.some((l) => l.includes("2 errors in a.fake"))).toBe(true);
  }, 60_000);
});
