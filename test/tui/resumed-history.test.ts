/**
 * A resumed session's history (`lembas -c`, `-r ID`) is drawn on the first frame, before the app's
 * modules are loaded (tui/resumed-history.ts), by the transcript the app then takes over: it must
 * show every block once, in the order it came, as the app itself draws a history (/resume).
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { listMessages } from "../../src/store/messages.ts";
import { storedByHand } from "../../src/tui/history-rows.ts";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import { runLembas, type Sandbox } from "../support/run.ts";
import { SESSION_OPEN, screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const PROBE = join(import.meta.dir, "../support/first-frame-probe.ts");
const SRC = join(import.meta.dir, "../../src");

const suite = screenSuite();
let box: Sandbox & { project: string };
let model: ScriptedModel;
beforeEach(() => {
  ({ box, model } = suite);
});

/** The blocks the history shows, in the order they came: each must be on the screen once. */
const BLOCKS = [
  "resumed session ",
  "› check the notes",
  "∴ thought (4 words)",
  "Let me look first.",
  "● Read notes.md",
  "☰ Todos (0/2 done)",
  "▶ read the notes",
  "☐ answer",
  "Looked at it.",
  "› and then?",
  "The second answer.",
];

/** A session of two turns: reasoning, an answer, a read and a todo call, a second step, a second prompt. */
async function sessionWithTurns(): Promise<string> {
  writeFileSync(join(box.project, "notes.md"), "hello\n");
  model.push(
    step({
      reasoning: "weighing where to look",
      text: "Let me look first.",
      toolCalls: [
        { name: "read", arguments: { path: "notes.md" } },
        { name: "todo", arguments: { todos: [{ content: "read the notes", status: "in_progress" }, { content: "answer", status: "pending" }] } },
      ],
    }),
    step({ text: "Looked at it." }),
  );
  const first = await runLembas(box, ["run", "check the notes"], { cwd: box.project });
  expect(first.code).toBe(0);
  model.push(step({ text: "The second answer." }));
  const second = await runLembas(box, ["run", "--continue", "and then?"], { cwd: box.project });
  expect(second.code).toBe(0);
  const list = await runLembas(box, ["sessions", "list"], { cwd: box.project });
  return /ses_[\w-]+/.exec(list.stdout)?.[0] ?? "";
}

/** The screen's lines from the resumed line to the last answer: the history as drawn. */
function historyOf(screen: string): string[] {
  const lines = screen.split("\n");
  const from = lines.findIndex((line) => line.includes("resumed session "));
  const to = lines.findIndex((line) => line.includes("The second answer."));
  return lines.slice(from, to + 1);
}

describe.skipIf(!HAVE_TMUX)("a resumed session's history", () => {
  test("shows every block once, in the order it came, line for line as /resume draws it", async () => {
    const id = await sessionWithTurns();
    expect(id).toMatch(/^ses_/);
    // The rows the engine wrote (tool calls, results with diffs and titles, reasoning) are every one read by hand, without zod.
    const db = openDb(join(box.stateDir, "lembas.db"));
    expect(storedByHand(listMessages(db, id))?.length).toBeGreaterThan(4);
    db.close();

    const resumed = await suite.open(["-c"], { rows: 60 });
    await resumed.waitFor("The second answer.");
    // The app has opened the session under it: what it draws then is on the screen too.
    await resumed.waitFor(SESSION_OPEN);
    const shown = resumed.text();
    let at = -1;
    for (const block of BLOCKS) {
      const found = shown.indexOf(block);
      expect({ block, after: found > at }).toEqual({ block, after: true });
      expect({ block, times: shown.split(block).length - 1 }).toEqual({ block, times: 1 });
      at = found;
    }
    expect(shown).toContain(`resumed session ${id}`);
    await resumed.type("C-d");
    expect(await resumed.exited()).toBe(0);

    // The app's own drawing of the same history, into a session opened empty.
    const fresh = await suite.open([], { rows: 60, ready: "test/test-model" });
    await fresh.waitFor(SESSION_OPEN);
    await fresh.type(`/resume ${id}`, "Enter");
    await fresh.waitFor("The second answer.");
    expect(historyOf(fresh.text())).toEqual(historyOf(shown));
  }, 30_000);

  test("is on the terminal before the app, the engine, the tools and zod are loaded", async () => {
    model.push(step({ text: "an answer kept in the session" }));
    const made = await runLembas(box, ["run", "remember this"], { cwd: box.project });
    expect(made.code).toBe(0);
    const out = join(box.dir, "loaded.json");
    const screen = await suite.open(["-c"], {
      env: { BUN_OPTIONS: `--preload ${PROBE}`, PROBE_READY: "an answer kept in the session", PROBE_OUT: out },
      source: true,
    });
    await screen.waitFor("an answer kept in the session");
    for (let i = 0; i < 400 && !existsSync(out); i++) await Bun.sleep(25);
    const all = JSON.parse(readFileSync(out, "utf8")) as string[];
    // Nor zod: its rows are read by hand (tui/history-rows.ts), a denial's wording is loaded when one is read.
    expect(all.filter((path) => path.includes("/node_modules/zod/"))).toEqual([]);
    const loaded = all.filter((path) => path.startsWith(SRC)).map((path) => path.slice(SRC.length + 1));
    expect(loaded).toContain("tui/resumed-history.ts");
    const heavy = loaded.filter((path) => /^(engine\/engine\.ts|model\/|mcp\/|tools\/index\.ts)/.test(path) || path === "tui/app.ts" || path === "tui/runtime.ts");
    expect(heavy).toEqual([]);
    await screen.waitFor(SESSION_OPEN);
    await screen.type("C-d");
    expect(await screen.exited()).toBe(0);
  }, 30_000);
});
