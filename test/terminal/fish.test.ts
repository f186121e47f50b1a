import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { cleanup, commandMarks, ends, makeHome, openScreen, startDirectoryMarks } from "./support.ts";
import { tool } from "../support/tools.ts";

afterEach(cleanup);

const FISH = tool("fish", "fish", "the fish shell integration tests");
const B = "\x1b]133;B\x07";

/** No greeting; the person's config counts its reading in ~/count. */
function fishHome(config = ""): string {
  return makeHome({
    ".config/fish/config.fish": [
      "function fish_greeting; end",
      'echo "config login=$(status is-login; and echo yes) vars=$(count (set -n | string match -- \'*lembas*\'))" >> ~/count',
      config,
      "",
    ].join("\n"),
  });
}

describe.skipIf(!FISH)("fish with integration", () => {
  const fish = FISH ?? "fish";

  test("marks prompts and commands: A, B, C, D with the status, OSC 7; a blank line ends no command", async () => {
    const home = fishHome();
    const marks = await commandMarks(openScreen({ shell: fish, home }), ["", "   ", "# a comment"]);
    const host = hostname();
    expect(marks.commands.slice(0, 10)).toEqual([
      "133;C",
      "133;D;0",
      "133;A",
      `7;file://${host}/tmp`,
      "133;B",
      "133;C",
      "133;D;1",
      "133;A",
      `7;file://${host}/tmp`,
      "133;B",
    ]);
    expect(ends(marks.after)).toEqual([]);
    expect(marks.after).not.toContain("133;C");
  });

  test("OSC 7 for the start directory is percent-encoded byte by byte", async () => {
    const home = fishHome();
    const { marks, expected } = await startDirectoryMarks({ shell: fish, home });
    expect(marks).toContain(expected);
  });

  test("reads the person's configuration as a login shell, with nothing of ours visible; their alias works", async () => {
    const home = fishHome("alias hello='echo hello-from-alias'");
    const screen = openScreen({ shell: fish, home });
    await screen.waitFor(/\x1b\]133;B\x07/);
    await screen.run("hello");
    expect(screen.text()).toContain("hello-from-alias");
    expect(readFileSync(join(home, "count"), "utf8").trim().split("\n")).toEqual(["config login=yes vars=0"]);
  });

  test("the person's fish_prompt still sees $status, gets B after it, and so does one defined later", async () => {
    const home = fishHome("function fish_prompt; echo -n \"mine[$status]> \"; end");
    const screen = openScreen({ shell: fish, home });
    await screen.waitFor(/\x1b\]133;B\x07/);
    await screen.run("false");
    expect(screen.text()).toContain(`mine[1]> ${B}`);
    await screen.run("function fish_prompt; echo -n 'theme> '; end");
    expect(screen.text()).toContain(`theme> ${B}`);
  });

  test("exit 3 ends the terminal with status 3", async () => {
    const screen = openScreen({ shell: fish, home: fishHome() });
    await screen.waitFor(/\x1b\]133;B\x07/);
    screen.type("exit 3\r");
    expect(await screen.terminal.exited).toBe(3);
  });
});

describe.skipIf(!FISH)("fish without integration", () => {
  test("is a plain login shell: no OSC 133", async () => {
    const home = fishHome();
    const screen = openScreen({ shell: FISH ?? "fish", home, integration: false });
    expect(screen.terminal.integration).toBe(false);
    screen.type("status is-login; and echo LOGIN-(math 6 \\* 7)\r");
    await screen.waitFor(/LOGIN-42/);
    expect(screen.text()).not.toContain("\x1b]133;");
  });
});
