/** /agents lists the custom agents the task tool offers: where each is written, its tools in the session's mode, its model. */
import { beforeEach, describe, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Sandbox } from "../support/run.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
let box: Sandbox & { project: string };
beforeEach(() => {
  ({ box } = suite);
});

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

describe.skipIf(!HAVE_TMUX)("/agents", () => {
  test("lists each agent with where it comes from, its tools in this mode and its model; one that cannot run says why", async () => {
    const finder = join(box.project, ".claude", "agents", "finder.md");
    const writer = join(box.configDir, "agents", "writer.md");
    const vague = join(box.project, ".agent", "agents", "vague.md");
    put(finder, "---\nname: finder\ndescription: Finds definitions\ntools: Read, Grep, WebSearch\nmodel: test/fast-model\neffort: low\n---\nYou find.\n");
    put(writer, "---\nname: writer\ndescription: Writes code\ndisallowedTools: Bash\n---\nYou write.\n");
    put(vague, "---\nname: vague\ntools: Read\n---\nYou do things.\n");
    const screen = await suite.open(["--mode", "edit"], { columns: 240 });
    await screen.type("/agents", "Enter");
    await screen.waitFor(`finder — Finds definitions · the project's .claude/agents: ${finder}`);
    await screen.waitFor("tools (edit mode): read, grep · model: test/fast-model · effort: low");
    await screen.waitFor("left out: WebSearch (Claude Code's; lembas has no such tool)");
    await screen.waitFor(`vague — (no description) · the project's .agent/agents: ${vague}`);
    await screen.waitFor("cannot run: it has no description");
    await screen.waitFor(`writer — Writes code · yours: ${writer}`);
    await screen.waitFor("tools (edit mode): read, write, edit, multi_edit, job, grep, glob, list, lsp, fetch, skill (may change files: runs alone) · model: the session's");
    await screen.type("/mode plan", "Enter");
    await screen.type("/agents", "Enter");
    await screen.waitFor("tools (plan mode): read, grep, glob, list, lsp, fetch, skill · model: the session's");
  });
});
