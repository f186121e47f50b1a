import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { cleanup, commandMarks, ends, makeHome, openScreen, startDirectoryMarks } from "./support.ts";
import { tool } from "../support/tools.ts";

afterEach(cleanup);

const ZSH = tool("zsh", "zsh", "the zsh shell integration tests");
const B = "\x1b]133;B\x07";
const A = "\x1b]133;A\x07";

/**
 * Every start-up file counts its reading in ~/count, with what it sees of ZDOTDIR and of lembas:
 * variables whose name says lembas (a value may: the checkout's path is in PATH).
 */
function probe(name: string): string {
  return [
    `print -r -- "${name} zdotdir=\${ZDOTDIR-unset} vars=\${(k)parameters[(I)*lembas*]}: env=$(env | cut -d= -f1 | grep -ci lembas)" >> ~/count`,
    "",
  ].join("\n");
}

function readCount(home: string): string[] {
  return readFileSync(join(home, "count"), "utf8").trim().split("\n");
}

describe.skipIf(!ZSH)("zsh with integration", () => {
  const zsh = ZSH ?? "zsh";

  test("marks prompts and commands: A, B, C, D with the status, OSC 7; an empty line ends no command", async () => {
    const home = makeHome({ ".zshrc": "PS1='%~ %# '\n" });
    const marks = await commandMarks(openScreen({ shell: zsh, home }), [""]);
    const host = hostname();
    expect(marks.commands).toEqual([
      "133;C",
      "133;D;0",
      `7;file://${host}/tmp`,
      "133;A",
      "133;B",
      "133;C",
      "133;D;1",
      `7;file://${host}/tmp`,
      "133;A",
      "133;B",
      `7;file://${host}/tmp`,
      "133;A",
      "133;B",
    ]);
    expect(ends(marks.after)).toEqual([]);
  });

  test("OSC 7 for the start directory is percent-encoded byte by byte", async () => {
    const home = makeHome({ ".zshrc": "PS1='%~ %# '\n" });
    const { marks, expected } = await startDirectoryMarks({ shell: zsh, home });
    expect(marks).toContain(expected);
  });

  test("follows a ZDOTDIR set in ~/.zshenv; no lembas variable is visible to the person's files", async () => {
    const home = makeHome({
      ".zshenv": `${probe(".zshenv")}ZDOTDIR=~/zdot\n`,
      "zdot/.zprofile": probe(".zprofile"),
      "zdot/.zshrc": `${probe(".zshrc")}alias hello='echo hello-from-alias'\n`,
      "zdot/.zlogin": probe(".zlogin"),
      ".zshrc": "echo wrong-zshrc >> ~/count\n",
    });
    const zdot = join(home, "zdot");
    const screen = openScreen({ shell: zsh, home });
    await screen.waitFor(/\x1b\]133;B\x07/);
    await screen.run("hello");
    await screen.run('echo "now zdotdir=${ZDOTDIR-unset} exported=$(env | grep -c ^ZDOTDIR=) vars=${(k)parameters[(I)*lembas*]}"');
    expect(readCount(home)).toEqual([
      ".zshenv zdotdir=unset vars=: env=0",
      `.zprofile zdotdir=${zdot} vars=: env=0`,
      `.zshrc zdotdir=${zdot} vars=: env=0`,
      `.zlogin zdotdir=${zdot} vars=: env=0`,
    ]);
    expect(screen.text()).toContain("hello-from-alias");
    // Only the flag of the command that runs is ours.
    expect(screen.text()).toContain(`now zdotdir=${zdot} exported=0 vars=__lembas_ran`);
  });

  test("without any ZDOTDIR, the files in ~ are read and ZDOTDIR is left unset", async () => {
    const home = makeHome({ ".zprofile": probe(".zprofile"), ".zshrc": probe(".zshrc") });
    const screen = openScreen({ shell: zsh, home });
    await screen.waitFor(/\x1b\]133;B\x07/);
    await screen.run('echo "now zdotdir=${ZDOTDIR-unset}"');
    expect(readCount(home)).toEqual([".zprofile zdotdir=unset vars=: env=0", ".zshrc zdotdir=unset vars=: env=0"]);
    expect(screen.text()).toContain("now zdotdir=unset");
  });

  test("a ZDOTDIR in the environment is followed and stays exported", async () => {
    const home = makeHome({ "zd/.zshenv": probe(".zshenv"), "zd/.zshrc": probe(".zshrc") });
    const zd = join(home, "zd");
    const screen = openScreen({ shell: zsh, home, env: { ZDOTDIR: zd } });
    await screen.waitFor(/\x1b\]133;B\x07/);
    await screen.run('echo "now $(env | grep ^ZDOTDIR=) $(env | cut -d= -f1 | grep -ci lembas)"');
    expect(readCount(home)).toEqual([`.zshenv zdotdir=${zd} vars=: env=0`, `.zshrc zdotdir=${zd} vars=: env=0`]);
    expect(screen.text()).toContain(`now ZDOTDIR=${zd} 0`);
  });

  test("a precmd hook that rebuilds the prompt (powerlevel10k-style) still gets A and B; one added later too", async () => {
    const home = makeHome({ ".zshrc": "rebuild() { PS1=\"built[$?]> \" }\nprecmd_functions+=(rebuild)\n" });
    const screen = openScreen({ shell: zsh, home });
    await screen.waitFor(/\x1b\]133;B\x07/);
    await screen.run("false");
    expect(screen.text()).toContain(`${A}built[1]> ${B}`);
    // The prompt right after the change comes before our hook could move back to the end: no B.
    screen.type("later() { PS1='later> ' }; precmd_functions+=(later)\r");
    await screen.waitFor(/later> /);
    await screen.run("true");
    expect(screen.text()).toContain(`${A}later> ${B}`);
  });
});

describe.skipIf(!ZSH)("zsh without integration", () => {
  test("is a plain login shell: no OSC 133, ZDOTDIR untouched", async () => {
    const home = makeHome({ ".zprofile": probe(".zprofile") });
    const screen = openScreen({ shell: ZSH ?? "zsh", home, integration: false });
    expect(screen.terminal.integration).toBe(false);
    screen.type("[[ -o login ]] && echo LOGIN-$((6 * 7)) ${ZDOTDIR-unset}\r");
    await screen.waitFor(/LOGIN-42 unset/);
    expect(screen.text()).not.toContain("\x1b]133;");
    expect(readCount(home)).toEqual([".zprofile zdotdir=unset vars=: env=0"]);
  });
});
