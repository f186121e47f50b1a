import { afterEach, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { openTerminal } from "../../src/terminal/terminal.ts";
import { cleanup, makeHome, openScreen } from "./support.ts";

afterEach(cleanup);

const BASH = Bun.which("bash") ?? "/bin/bash";

function ourTempDirs(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith(`lembas-shell-${process.pid}-`));
}

/** Whether no process is left in the session `sid` (waiting a little for the kernel's SIGHUP to land). */
async function sessionEmpty(sid: number): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    const ps = Bun.spawnSync(["ps", "-o", "pid=,stat=", "-s", String(sid)]).stdout.toString();
    if (!ps.split("\n").some((line) => line.trim() && !line.includes("Z"))) return true;
    await Bun.sleep(20);
  }
  return false;
}

describe("openTerminal", () => {
  test("says which shell runs and whether integrated; resize reaches it", async () => {
    const screen = openScreen({ shell: BASH, home: makeHome(), cols: 90, rows: 20 });
    expect(screen.terminal.shell).toBe("bash");
    expect(screen.terminal.integration).toBe(true);
    await screen.waitFor(/\x1b\]133;B\x07/);
    await screen.run("stty size");
    expect(screen.text()).toContain("20 90");
    screen.terminal.resize(120, 40);
    // bash redraws its prompt on SIGWINCH, a prompt mark run() may take for the command's own.
    const from = screen.text().length;
    await screen.run("stty size");
    await screen.waitFor(/40 120/, 8_000, from);
  });

  test("the exit comes after the last output, and the rc wrapper's temp dir is gone by then", async () => {
    const before = ourTempDirs().length;
    const screen = openScreen({ shell: BASH, home: makeHome() });
    expect(ourTempDirs().length).toBe(before + 1);
    await screen.waitFor(/\x1b\]133;B\x07/);
    screen.type("seq 1 50000; echo last-words; exit 5\r");
    expect(await screen.terminal.exited).toBe(5);
    expect(screen.text()).toContain("49999\r\n50000\r\nlast-words\r\n");
    expect(ourTempDirs().length).toBe(before);
  });

  test("a consumer that is gone: dispose() drops the output and the terminal still ends", async () => {
    const home = makeHome();
    let sent = 0;
    const terminal = openTerminal({
      cwd: home,
      cols: 80,
      rows: 24,
      integration: false,
      env: { PATH: process.env.PATH, HOME: home },
      shell: { path: "/bin/sh", kind: "other" },
      // Never drains: everything waits, and the shell is paused.
      sink: { send: (frame) => void (sent += frame.length), bufferedAmount: () => 64 * 1024 * 1024 },
    });
    terminal.input("yes\r");
    const deadline = Date.now() + 5000;
    while (!terminal.stats().paused && Date.now() < deadline) await Bun.sleep(20);
    expect(terminal.stats().paused).toBe(true);
    terminal.dispose();
    expect(await terminal.exited).toBe(129);
    expect(sent).toBe(0);
    expect(terminal.stats().held).toBe(0);
    expect(await sessionEmpty(terminal.pid)).toBe(true);
  });
});
