import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { cleanup, commandMarks, ends, makeHome, openScreen, startDirectoryMarks } from "./support.ts";

afterEach(cleanup);

const BASH = Bun.which("bash") ?? "/bin/bash";
const B = "\x1b]133;B\x07";
const A = "\x1b]133;A\x07";

/** The usual layout: ~/.bash_profile reads ~/.bashrc; both count their reading in ~/count. */
function bashHome(bashrc = "", extra: Record<string, string> = {}): string {
  return makeHome({
    ".bash_profile": 'echo bash_profile >> ~/count\n[ -r ~/.bashrc ] && . ~/.bashrc\n',
    ".bashrc": `echo bashrc >> ~/count\n${bashrc}\n`,
    ".profile": "echo profile >> ~/count\n",
    ...extra,
  });
}

function readCount(home: string): string[] {
  return readFileSync(join(home, "count"), "utf8").trim().split("\n");
}

describe("bash with integration", () => {
  test("marks prompts and commands: A, B, C, D with the status, OSC 7; an empty line ends no command", async () => {
    const home = bashHome();
    const marks = await commandMarks(openScreen({ shell: BASH, home }), [""]);
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

  test("the first prompt is marked, with OSC 7 for the start directory, percent-encoded byte by byte", async () => {
    const home = bashHome();
    const { marks, expected } = await startDirectoryMarks({ shell: BASH, home });
    expect(marks).toEqual([expected, "133;A", "133;B"]);
  });

  test("reads the person's login files once each, as bash -l does; their alias works", async () => {
    const home = bashHome("alias hello='echo hello-from-alias'");
    const screen = openScreen({ shell: BASH, home });
    await screen.waitFor(/\x1b\]133;B\x07/);
    await screen.run("hello");
    expect(screen.text()).toContain("hello-from-alias");
    // ~/.profile is not read when ~/.bash_profile exists; ~/.bashrc only because .bash_profile reads it.
    expect(readCount(home)).toEqual(["bash_profile", "bashrc"]);
  });

  test("without ~/.bash_profile, ~/.profile is the login file (and ~/.bashrc is not read by itself)", async () => {
    const home = makeHome({ ".profile": "echo profile >> ~/count\n", ".bashrc": "echo bashrc >> ~/count\n" });
    const screen = openScreen({ shell: BASH, home });
    await screen.waitFor(/\x1b\]133;B\x07/);
    expect(readCount(home)).toEqual(["profile"]);
  });

  test("a PROMPT_COMMAND that rebuilds PS1 (starship-style) still gets A and B, and sees the command's $?", async () => {
    const home = bashHome(`PROMPT_COMMAND='PS1="custom[$?]> "'`);
    const screen = openScreen({ shell: BASH, home });
    await screen.waitFor(/\x1b\]133;B\x07/);
    await screen.run("false");
    expect(screen.text()).toContain(`${A}custom[1]> ${B}`);
    expect(screen.marks().filter((mark) => mark === "133;D;1")).toHaveLength(1);
  });

  test("a prompt hook appended at the prompt gets B from the next prompt on; an array PROMPT_COMMAND too", async () => {
    const home = bashHome();
    const screen = openScreen({ shell: BASH, home });
    await screen.waitFor(/\x1b\]133;B\x07/);
    // The prompt right after the change comes before our hook could move: it has no B.
    screen.type(`PROMPT_COMMAND+=$'\\nPS1="later> "'\r`);
    await screen.waitFor(/later> $/);
    await screen.run("true");
    expect(screen.text()).toContain(`${A}later> ${B}`);
    const before = screen.text().length;
    screen.type(`PROMPT_COMMAND=("\${PROMPT_COMMAND[@]}" 'PS1="array> "')\r`);
    await screen.waitFor(/array> $/, 8_000, before);
    await screen.run("true");
    const last = screen.text().length;
    await screen.run("true");
    expect(screen.text().slice(last)).toContain(`${A}array> ${B}`);
    expect(screen.marks(last).filter((mark) => mark.startsWith("7;"))).toHaveLength(1);
  });

  test("leaves no variable of its own (but the flag of the running command) and exports none", async () => {
    const home = bashHome();
    const screen = openScreen({ shell: BASH, home, env: { MY_SETTING: "kept as it was" } });
    await screen.waitFor(/\x1b\]133;B\x07/);
    await screen.run(`echo "vars=$(compgen -v | grep -i lembas | tr '\\n' ,) env=$(env | cut -d= -f1 | grep -ci lembas) mine=$MY_SETTING"`);
    expect(screen.text()).toContain("vars=__lembas_ran, env=0 mine=kept as it was");
  });

  test("logout works and reads ~/.bash_logout, before the person's own EXIT trap", async () => {
    const home = bashHome("trap 'echo user-exit-trap >> ~/count' EXIT", {
      ".bash_logout": "echo bash_logout >> ~/count\n",
    });
    const screen = openScreen({ shell: BASH, home });
    await screen.waitFor(/\x1b\]133;B\x07/);
    screen.type("logout\r");
    expect(await screen.terminal.exited).toBe(0);
    expect(readCount(home)).toEqual(["bash_profile", "bashrc", "bash_logout", "user-exit-trap"]);
  });

  test("exit 3 ends the terminal with status 3, reading ~/.bash_logout", async () => {
    const home = bashHome("", { ".bash_logout": "echo bash_logout >> ~/count\n" });
    const screen = openScreen({ shell: BASH, home });
    await screen.waitFor(/\x1b\]133;B\x07/);
    screen.type("exit 3\r");
    expect(await screen.terminal.exited).toBe(3);
    expect(readCount(home)).toContain("bash_logout");
  });

  test("a hang-up ends the shell with SIGHUP's status", async () => {
    const home = bashHome();
    const screen = openScreen({ shell: BASH, home });
    await screen.waitFor(/\x1b\]133;B\x07/);
    screen.terminal.close();
    expect(await screen.terminal.exited).toBe(129);
  });
});

describe("bash without integration", () => {
  test("is a plain login shell: no OSC 133, the login files read", async () => {
    const home = bashHome();
    const screen = openScreen({ shell: BASH, home, integration: false });
    expect(screen.terminal.integration).toBe(false);
    expect(screen.terminal.shell).toBe("bash");
    screen.type("shopt -q login_shell && echo LOGIN-$((6 * 7))\r");
    await screen.waitFor(/LOGIN-42/);
    expect(screen.text()).not.toContain("\x1b]133;");
    expect(readCount(home)).toEqual(["bash_profile", "bashrc"]);
  });
});
