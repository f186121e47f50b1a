/**
 * Text a project makes — its files' and its directory's names, its custom commands' and skills'
 * descriptions — never acts on the terminal: a cloned repo or an unpacked archive decides them. Their
 * control characters are drawn as escapes (`\x1b]0;…`), so no window title, clipboard write (OSC 52)
 * or switch to the alternate screen reaches the terminal.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });

/** Retitle the window, write the clipboard, switch to the alternate screen. */
const HOSTILE = "\x1b]0;pwned\x07\x1b]52;c;UFdORUQ=\x07\x1b[?1049h";
/** The same in a YAML double-quoted string, as frontmatter writes it. */
const IN_YAML = "\\e]0;pwned\\a\\e]52;c;UFdORUQ=\\a\\e[?1049h";
/** The same as the screen shows it, written out. */
const SHOWN = "\\x1b]0;pwned\\x07\\x1b]52;c;UFdORUQ=\\x07\\x1b[?1049h";

/** The pane's title and whether it is on the alternate screen, as tmux keeps them. */
function paneState(screen: Screen): string {
  return Bun.spawnSync(["tmux", "-L", screen.socket, "display-message", "-p", "-t", "0", "#{pane_title} alt=#{alternate_on}"]).stdout.toString().trim();
}

/** Whether any of the hostile sequences is in what the program wrote. */
function obeyable(bytes: string): boolean {
  return ["\x1b]0;pwned", "\x1b]52;", "\x1b[?1049h"].some((sequence) => bytes.includes(sequence));
}

describe.skipIf(!HAVE_TMUX)("text from the project is shown, never obeyed", () => {
  test("a file name with escape sequences in the @ picker, and written into the draft when picked", async () => {
    writeFileSync(join(suite.box.project, `evil${HOSTILE}.txt`), "x");
    const screen = await suite.open();
    const recording = await screen.record();
    await screen.type("look at @evi");
    await screen.waitFor(`evil${SHOWN}.txt`);
    // Picked, the draft holds the name as shown (a mention escapes its backslashes), not its controls.
    await screen.type("Tab");
    await screen.waitFor(`look at @evil${SHOWN.replaceAll("\\", "\\\\")}.txt`);
    expect(obeyable(recording.bytes())).toBe(false);
    expect(paneState(screen)).not.toContain("pwned");
    expect(paneState(screen)).toEndWith("alt=0");
  });

  test("a session directory whose name carries escape sequences, in the header", async () => {
    const dir = join(suite.box.dir, `proj${HOSTILE}`);
    mkdirSync(dir);
    const screen = await openScreen(suite.box, { cwd: dir });
    try {
      await screen.waitFor(`proj${SHOWN}`);
      // The app's own header, drawn once the session is open, as well as the first frame's.
      await screen.type("/status", "Enter");
      await screen.waitFor("tokens here");
      expect(screen.text()).toContain(`lembas 0.1.0 · ${dir.replace(HOSTILE, SHOWN)}`);
      expect(paneState(screen)).not.toContain("pwned");
      expect(paneState(screen)).toEndWith("alt=0");
    } finally {
      await screen.close();
    }
  });

  test("a custom command's and a skill's descriptions in the / list and /help", async () => {
    mkdirSync(join(suite.box.project, ".agent/commands"), { recursive: true });
    writeFileSync(join(suite.box.project, ".agent/commands/deploy.md"), `---\ndescription: "Deploy ${IN_YAML} it"\nargument-hint: "<env${IN_YAML}>"\n---\nDeploy the thing\n`);
    mkdirSync(join(suite.box.project, ".agent/skills/evil"), { recursive: true });
    writeFileSync(join(suite.box.project, ".agent/skills/evil/SKILL.md"), `---\nname: evil\ndescription: "Skill ${IN_YAML} desc"\n---\nbody\n`);
    const screen = await suite.open();
    const recording = await screen.record();
    await screen.type("/dep");
    await screen.waitFor(`<env${SHOWN}> — Deploy \\x1b]0;pwned`);
    await screen.type("C-u", "/evi");
    await screen.waitFor(`Skill ${SHOWN} desc`);
    await screen.type("C-u", "/help deploy", "Enter");
    await screen.waitFor(`${SHOWN} it`);
    await screen.type("/help", "Enter");
    await screen.waitFor("Esc closes");
    await screen.waitFor("Skill \\x1b]0;pwned");
    expect(obeyable(recording.bytes())).toBe(false);
    expect(paneState(screen)).not.toContain("pwned");
    expect(paneState(screen)).toEndWith("alt=0");
  });
});
