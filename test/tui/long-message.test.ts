/**
 * A huge prompt in the transcript: shown folded to its first rows, a line counting what is left
 * out, and its last rows; the model and the store get it whole, and the terminal answers the next
 * key as usual (it wraps what it shows, not megabytes).
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX, type Screen } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
let model: ScriptedModel;
beforeEach(() => {
  model = suite.model;
});

/** 3 MB on one line, as the web's test sends it. */
const ONE_LINE = `${"lorem ipsum dolor sit amet ".repeat(3 * 1024 * 40)}the end`;
/** 60,001 short lines. */
const MANY_LINES = `${Array.from({ length: 60_000 }, (_, i) => `line ${i} lorem ipsum dolor sit`).join("\n")}\nthe end`;

/** A bracketed paste of a text too long for tmux's command line (`set-buffer` takes it as an argument). */
async function pasteLarge(screen: Screen, text: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "lembas-paste-"));
  try {
    writeFileSync(join(dir, "paste"), text);
    for (const args of [["load-buffer", join(dir, "paste")], ["paste-buffer", "-p", "-t", "0"]]) {
      const done = Bun.spawnSync(["tmux", "-L", screen.socket, ...args], { stderr: "pipe" });
      if (done.exitCode !== 0) throw new Error(`tmux ${args[0]} failed: ${done.stderr.toString()}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The user messages of the model's step requests, as sent. */
function sentPrompts(): string[] {
  const texts: string[] = [];
  for (const request of model.requests.filter((r) => isStep(r.body))) {
    const messages = (request.body.messages ?? []) as { role: string; content: unknown }[];
    for (const m of messages.filter((m) => m.role === "user")) texts.push(typeof m.content === "string" ? m.content : JSON.stringify(m.content));
  }
  return texts;
}

/** Sends `text` as a pasted prompt, waits for the answer, and quits: the session then has it in its history. */
async function sessionWith(text: string): Promise<void> {
  model.push(step({ text: "read it all" }));
  const first = await suite.open();
  await pasteLarge(first, text);
  await first.waitFor("[paste #1", 30_000);
  await first.type("Enter");
  await first.waitFor("read it all", 30_000);
  // Large values are compared as booleans: a failure prints no megabytes.
  expect(sentPrompts().some((sent) => sent.includes(text))).toBe(true);
  await first.type("C-d");
  await first.exited(30_000);
}

describe.skipIf(!HAVE_TMUX)("a long message in the transcript", () => {
  test("a resumed session's 3 MB one-line prompt shows its first rows, how much is left out, and its end; the next key is answered", async () => {
    await sessionWith(ONE_LINE);
    model.push(step({ text: "answered after" }));
    const resumed = await suite.open(["-c"]);
    const screen = await resumed.waitFor(/… [\d,]+ more characters/, 30_000);
    expect(screen).toContain("› lorem ipsum dolor sit amet");
    // Its end, on one row.
    expect(screen).toMatch(/\n  ….*dolor sit amet the end\n/);
    expect(screen).toContain("read it all");
    // Folded: eight rows of it, not a screenful.
    expect(screen.match(/lorem/g)?.length ?? 0).toBeLessThan(200);
    await resumed.type("and now me", "Enter");
    await resumed.waitFor("answered after");
  }, 90_000);

  test("a resumed session's prompt of 60,001 lines shows its first lines, a count of the rest, and its last line", async () => {
    await sessionWith(MANY_LINES);
    model.push(step({ text: "answered after" }));
    const resumed = await suite.open(["-c"]);
    const screen = await resumed.waitFor("… 59,992 more lines", 30_000);
    expect(screen).toContain("› line 0 lorem ipsum dolor sit");
    expect(screen).toContain("  line 7 lorem ipsum dolor sit");
    expect(screen).not.toContain("line 8 lorem");
    expect(screen).not.toContain("line 59999 lorem");
    expect(screen).toContain("  the end");
    await resumed.type("and now me", "Enter");
    await resumed.waitFor("answered after");
  }, 90_000);
});
