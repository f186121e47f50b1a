/**
 * The composer's `!`: a command the person runs in the session's directory, shown bounded with a
 * line count and given to the model with the next prompt; a flood, one that never ends, one that
 * reads stdin.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { procStat } from "../../src/tools/proc-stat.ts";
import { step } from "../support/engine.ts";
import { contentText } from "../support/model.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX, type Screen } from "../support/tmux.ts";
import { CONTEXT_MAX_CHARS, type ShellRun, shellContext } from "../../src/tui/shell-mode.ts";
import { DEFAULT_WAIT_MS, sleep } from "../support/recorder.ts";

const suite = screenSuite({ ready: "test/test-model" });

/** The last user message of the last turn's request (not a title's), as text. */
function lastUserMessage(): string {
  const body = suite.model.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0).at(-1)?.body;
  const users = (body?.messages ?? []).filter((m) => m.role === "user");
  return contentText(users.at(-1)?.content);
}

/** Whether the process runs (a zombie waiting for a container's PID 1 to reap it does not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !["Z", "X"].includes(procStat(pid).state);
  } catch {
    return !existsSync("/proc");
  }
}

async function gone(pid: number): Promise<void> {
  const until = Date.now() + 10_000;
  while (alive(pid)) {
    if (Date.now() > until) throw new Error(`process ${pid} is still running`);
    await sleep(50);
  }
}

/** The session /status names now (read from what it writes, as the lines scroll). */
async function statusSession(screen: Screen): Promise<string> {
  const out = await screen.record();
  await screen.type("/status", "Enter");
  const until = Date.now() + DEFAULT_WAIT_MS;
  while (!out.bytes().includes("tokens here")) {
    if (Date.now() > until) throw new Error(`/status said nothing; the screen:\n${screen.text()}`);
    await sleep(25);
  }
  return /session (ses_[\w-]+)/.exec(out.bytes())?.[1] ?? "";
}

describe("what `!` commands give the next prompt", () => {
  const run = (command: string, size: number): ShellRun => ({ command, cwd: "/p", output: "x".repeat(size), exitCode: 0, signal: null, stopped: false, leftBehind: false });

  test("all of them together are bounded: the oldest are left out and counted, the newest always given (six floods were 61 KB)", () => {
    const runs = Array.from({ length: 6 }, (_, i) => run(`flood ${i}`, 10_000));
    const context = shellContext(runs);
    expect(context.length).toBeLessThan(CONTEXT_MAX_CHARS + 2_000);
    expect(context).toContain("flood 5");
    expect(context).not.toContain("flood 0");
    expect(context).toContain(`(3 earlier commands they ran are left out: all the output together is kept to ${CONTEXT_MAX_CHARS} characters, the newest first)`);
    // One larger than the bound on its own is still given: it was cut to its own bound when it ran.
    expect(shellContext([run("big", CONTEXT_MAX_CHARS + 10)])).toContain("big");
  });
});

describe.skipIf(!HAVE_TMUX)("! in the composer", () => {
  test("!echo hi runs in the session's directory, is shown, and goes to the model with the next prompt, not as the person's words", async () => {
    const screen = await suite.open();
    await screen.type("!echo hi from $(basename $PWD)", "Enter");
    await screen.waitFor("⎿ hi from project");
    // Nothing went to the model for the command itself.
    expect(suite.model.requests.length).toBe(0);
    await screen.type("what did it say?", "Enter");
    await screen.waitFor("› what did it say?");
    await suite.model.waitForRequests(1);
    await screen.waitGone(/ working \d+(s|m)/);
    const sent = lastUserMessage();
    expect(sent).toContain("<bash-input>echo hi from $(basename $PWD)</bash-input>");
    expect(sent).toContain("<bash-stdout>hi from project</bash-stdout>");
    expect(sent).toContain("what did it say?");
    expect(sent.indexOf("<bash-input>")).toBeLessThan(sent.indexOf("what did it say?"));
    expect(screen.text()).not.toContain("› [lembas]");
    // Given once: the prompt after it carries no command.
    const before = suite.model.requests.length;
    await screen.type("and now?", "Enter");
    await screen.waitFor("› and now?");
    await suite.model.waitForRequests(before + 1);
    await screen.waitGone(/ working \d+(s|m)/);
    expect(lastUserMessage()).not.toContain("<bash-input>");
  });

  test("!cd sub carries over to the next ! command, as in a shell, and the block says where it runs; the session's directory is unchanged", async () => {
    mkdirSync(join(suite.box.project, "sub"));
    const screen = await suite.open();
    await screen.type("!cd sub", "Enter");
    await screen.waitFor(`! commands run in ${suite.box.project}/sub now`);
    await screen.type("!echo here: $(basename $PWD)", "Enter");
    await screen.waitFor("⎿ here: sub");
    expect(screen.text()).toContain(`· in ${suite.box.project}/sub`);
    // A cd that fails moves nothing; cd .. goes back to the session's directory.
    await screen.type("!cd nowhere-at-all", "Enter");
    await screen.waitFor("exit 1");
    await screen.type("!cd ..", "Enter");
    await screen.waitFor(`! commands run in ${suite.box.project} now`);
    await screen.type("!echo back: $(basename $PWD)", "Enter");
    await screen.waitFor("⎿ back: project");
    expect(suite.model.requests.length).toBe(0);
  });

  test("an unfinished command gets the shell's own syntax error and exit code; lembas's own lines never become its input or its output", async () => {
    const screen = await suite.open();
    await screen.type("!echo a |", "Enter");
    await screen.waitFor("exit 2");
    expect(screen.text()).toContain("syntax error: unexpected end of file");
    // The whole line is parsed before any of it runs, as a shell reads it: the redirection never happens.
    await screen.type("!echo x > made.txt &&", "Enter");
    await screen.waitFor(/exit 2[\s\S]*exit 2/);
    expect(existsSync(join(suite.box.project, "made.txt"))).toBe(false);
    // A here-document left open reads to the end of the person's text, not into lembas's lines.
    await screen.type("!cat <<EOF", "Enter");
    await screen.waitFor("wanted `EOF'");
    // A command that ends the shell itself keeps its exit code, and a cd before it still carries over.
    mkdirSync(join(suite.box.project, "sub"));
    await screen.type("!cd sub && exit 3", "Enter");
    await screen.waitFor("exit 3");
    await screen.waitFor(`! commands run in ${suite.box.project}/sub now`);
    await screen.type("!echo 'it'\\''s' \"$((6*7))\"", "Enter");
    await screen.waitFor("⎿ it's 42");
    expect(screen.text()).not.toMatch(/__lembas|lembas-shell-cwd/);
    await screen.type("what happened?", "Enter");
    await suite.model.waitForRequests(1);
    await screen.waitGone(/ working \d+(s|m)/);
    const sent = lastUserMessage();
    expect(sent).toContain("<bash-input>cat <<EOF</bash-input>");
    expect(sent).not.toMatch(/__lembas|lembas-shell-cwd/);
  });

  test("what a command printed stays with its session: after /new the next prompt carries none of it", async () => {
    const screen = await suite.open();
    await screen.type("!echo left behind", "Enter");
    await screen.waitFor("⎿ left behind");
    const first = await statusSession(screen);
    await screen.type("/new", "Enter");
    // The new session is open once /status names another one (a prompt typed meanwhile went to the one left).
    for (let tries = 0; (await statusSession(screen)) === first; tries++) expect(tries).toBeLessThan(100);
    await screen.type("fresh", "Enter");
    await screen.waitFor("› fresh");
    await suite.model.waitForRequests(1);
    await screen.waitGone(/ working \d+(s|m)/);
    expect(lastUserMessage()).toContain("fresh");
    expect(lastUserMessage()).not.toContain("left behind");
  });

  test("a command that prints 100 MB: a few lines shown with the count of all, and the model gets a bounded part", async () => {
    const screen = await suite.open();
    // 104857600 bytes of 11-byte lines: 9532509 whole ones and a last of one byte.
    await screen.type("!yes 0123456789 | head -c 104857600", "Enter");
    await screen.waitFor("9532510 in all", 120_000);
    expect(screen.text()).toContain("⎿ 0123456789");
    await screen.type("what was that?", "Enter");
    await screen.waitFor("› what was that?");
    await suite.model.waitForRequests(1);
    await screen.waitGone(/ working \d+(s|m)/);
    const sent = lastUserMessage();
    expect(sent).toContain("characters left out");
    expect(sent.length).toBeLessThan(100_000);
  });

  test("a command that never ends is stopped by Ctrl-C, with what it started even when that ignores SIGTERM; the composer works after", async () => {
    const screen = await suite.open();
    const pidFile = join(suite.box.project, "child.pid");
    await screen.type(`!sh -c 'trap "" TERM; sleep 100007' & echo $! > child.pid; echo started; wait`, "Enter");
    await screen.waitFor("esc to stop");
    await screen.waitFor("│ started");
    const child = Number(readFileSync(pidFile, "utf8").trim());
    expect(alive(child)).toBe(true);
    await screen.type("C-c");
    await screen.waitFor("stopped: it and every process it started");
    await gone(child);
    // Ctrl-C stopped the command and armed no quit.
    expect(screen.text()).not.toContain("press Ctrl-C again to quit");
    await screen.type("!echo after", "Enter");
    await screen.waitFor("⎿ after");
    expect(screen.exitCode()).toBeNull();
  });

  test("Esc stops a command that floods without end; a command reading stdin gets none and ends", async () => {
    const screen = await suite.open();
    await screen.type("!yes flood", "Enter");
    await screen.waitFor("│ flood");
    await screen.type("Escape");
    await screen.waitFor("stopped: it and every process it started");
    await screen.waitFor(/\d+ lines left out \(\d+ in all\)/);
    await screen.type('!read x; echo "got [$x]"', "Enter");
    await screen.waitFor("⎿ got []");
  });

  test("! alone, or while a turn runs, runs nothing and says why", async () => {
    const screen = await suite.open();
    await screen.type("!", "Enter");
    await screen.waitFor("type a command after !");
    expect(suite.model.requests.length).toBe(0);
    suite.model.push(step({ text: "x", fail: "hang" }));
    await screen.type("hang", "Enter");
    await screen.waitFor(/ working \d+(s|m)/);
    await screen.type("!echo no", "Enter");
    await screen.waitFor("a turn is running: run the command when it ends");
    // The draft is kept, to send once the turn ends.
    expect(screen.text()).toContain("!echo no");
    expect(screen.text()).not.toContain("⎿ no");
  });
});
