/** The terminal reads config.yaml again when it changes: a deny rule written while it runs holds from the next turn; a broken file is said and the last good one kept. */
import { beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import type { Sandbox } from "../support/run.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
let box: Sandbox & { project: string };
let model: ScriptedModel;
beforeEach(() => {
  ({ box, model } = suite);
});

describe.skipIf(!HAVE_TMUX)("config.yaml edited while the terminal runs", () => {
  test("a deny rule holds from the next turn; broken, it still holds and the terminal says why once", async () => {
    const cfgFile = join(box.configDir, "config.yaml");
    const first = readFileSync(cfgFile, "utf8");
    const write = (file: string, done: string) => model.push(step({ toolCalls: [{ name: "write", arguments: { path: file, content: "x\n" } }] }), step({ text: done }));
    const screen = await suite.open([]);
    write("one.txt", "wrote one");
    await screen.type("write one", "Enter");
    await screen.waitFor("wrote one");
    expect(existsSync(join(box.project, "one.txt"))).toBe(true);

    const denied = `${first}permissions:\n  deny: [Write(two.txt)]\n`;
    writeFileSync(cfgFile, denied);
    write("two.txt", "tried two");
    await screen.type("write two", "Enter");
    await screen.waitFor("tried two");
    expect(existsSync(join(box.project, "two.txt"))).toBe(false);

    writeFileSync(cfgFile, `${denied}  bogus: [x]\n`);
    write("two.txt", "tried again");
    await screen.type("write two again", "Enter");
    await screen.waitFor("tried again");
    // The terminal wraps the notice where the sandbox's path makes it: any run of spaces may be a line's end.
    await screen.waitFor(/permissions\.bogus:\s+is\s+not\s+a\s+known\s+key\s+—\s+the\s+config\.yaml\s+read\s+before\s+stays\s+in\s+force\s+until\s+it\s+is\s+fixed/);
    expect(screen.text().match(/read\s+before\s+stays/g)).toHaveLength(1);
    expect(existsSync(join(box.project, "two.txt"))).toBe(false);
  });
});
