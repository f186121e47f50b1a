/**
 * A session one of whose stored rows no longer reads (its body not JSON: a disk error, a hand
 * edit, an older version's bug) is resumed in the terminal (`lembas -r ID`): the rest of its history
 * is drawn, as it is past a row of the wrong shape, with no stack trace, and the session goes on.
 * The project's earlier prompts (Up) pass over such a row too.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import { runLembas } from "../support/run.ts";
import { SESSION_OPEN, screenSuite } from "../support/screens.ts";
import { NOT_JSON, spoilRow, spoilTurnAnswers, WRONG_SHAPE } from "../support/spoilt-rows.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite();

const idOf = (stdout: string) => (JSON.parse(stdout.split("\n")[0] ?? "{}") as { id: string }).id;

describe.skipIf(!HAVE_TMUX)("a resumed session with a spoilt row", () => {
  test("draws the rest of its history, opens and runs a turn; Up recalls the readable prompts", async () => {
    const { box, model } = suite;
    const run = (args: string[]) => runLembas(box, ["run", "--format", "json", ...args], { cwd: box.project });
    model.push(step({ text: "an older answer" }));
    const older = await run(["an older prompt"]);
    expect(older.code).toBe(0);
    spoilRow(box.stateDir, idOf(older.stdout), "user", 0, NOT_JSON);

    writeFileSync(join(box.project, "notes.md"), "hello\n");
    model.push(
      step({
        text: "Let me look first.",
        toolCalls: [
          { name: "read", arguments: { path: "notes.md" } },
          { name: "todo", arguments: { todos: [{ content: "read the notes", status: "in_progress" }] } },
        ],
      }),
      step({ text: "Looked at it." }),
    );
    const first = await run(["check the notes"]);
    expect(first.code).toBe(0);
    const id = idOf(first.stdout);
    model.push(step({ text: "The second answer." }));
    expect((await run(["--session", id, "and then?"])).code).toBe(0);
    spoilRow(box.stateDir, id, "tool", 0, NOT_JSON);
    spoilRow(box.stateDir, id, "tool", 1, WRONG_SHAPE);
    spoilTurnAnswers(box.stateDir, id, NOT_JSON);

    const screen = await suite.open(["-r", id], { rows: 50 });
    await screen.waitFor("The second answer.");
    await screen.waitFor(SESSION_OPEN);
    const shown = screen.text();
    for (const block of [`resumed session ${id}`, "› check the notes", "Let me look first.", "Looked at it.", "› and then?", "The second answer."]) expect(shown).toContain(block);
    for (const broken of ["JSON Parse", "SyntaxError", "unexpected error", "could not be read"]) expect(shown).not.toContain(broken);

    await screen.type("Up");
    await screen.waitFor(/and then\?[\s\S]*and then\?/);
    expect(screen.text()).not.toContain("an older prompt");
    model.push(step({ text: "Still going." }));
    await screen.type("C-u", "still here?", "Enter");
    await screen.waitFor("Still going.");
    await screen.type("C-d");
    expect(await screen.exited()).toBe(0);
  }, 60_000);
});
