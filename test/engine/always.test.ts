import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PermissionDecision } from "../../src/engine/interaction.ts";
import { type EngineHarness, engineHarness, ofType, step, person } from "../support/engine.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());


/** A turn in edit mode where the model runs these command lines one after another. */
async function run(commands: string[], answers: PermissionDecision[]) {
  h.model.push(...commands.map((command) => step({ toolCalls: [{ name: "bash", arguments: { command } }] })), step({ text: "ok" }));
  const session = await h.session({ mode: "edit" });
  const who = person(answers);
  session.interaction = who;
  await session.prompt({ text: "go" });
  const ran = ofType(h.events(session), "tool_start").map((e) => (e.args as { command: string }).command);
  return { asked: who.asked, ran };
}

describe('"always" in a session', () => {
  test("cd x && npm test, allowed for the session once, runs unasked the second time", async () => {
    mkdirSync(join(h.project, "x"));
    const { asked, ran } = await run(["cd x && npm test", "cd x && npm test"], [{ outcome: "session" }]);
    expect(asked.map((a) => a.always)).toEqual(["npm test commands (they run the project's own scripts, as those then are), for this session"]);
    expect(ran).toEqual(["cd x && npm test", "cd x && npm test"]);
  });

  test("a command the person corrected runs once: always on it allows neither the model's line nor theirs", async () => {
    const { asked, ran } = await run(
      ["git log", "git log"],
      [{ outcome: "session", command: "git log --oneline -5" }, { outcome: "deny" }],
    );
    expect(asked).toHaveLength(2);
    expect(ran).toEqual(["git log --oneline -5"]);
  });

  test("git status allowed for the session still asks before git push --force", async () => {
    const { asked, ran } = await run(["git status", "git push --force"], [{ outcome: "session" }, { outcome: "deny" }]);
    expect(asked.map((a) => a.always)).toEqual(["git status commands, for this session", "git push commands, for this session"]);
    expect(ran).toEqual(["git status"]);
  });

  test("ls allowed for the session still asks before LD_PRELOAD=./x.so ls, and offers no always for it", async () => {
    const { asked, ran } = await run(["ls", "LD_PRELOAD=./x.so ls"], [{ outcome: "session" }, { outcome: "deny" }]);
    expect(asked.map((a) => a.always)).toEqual(["ls commands, for this session", null]);
    expect(ran).toEqual(["ls"]);
  });

  test("a line that substitutes, or writes outside the project, is never offered always", async () => {
    const { asked } = await run(["echo $(cat ~/.ssh/id_rsa)", "echo hi > /tmp/outside"], [{ outcome: "deny" }, { outcome: "deny" }]);
    expect(asked.map((a) => a.always)).toEqual([null, null]);
  });

  test("cat allowed for the session still asks before cat .env and grep -r KEY ., and offers no always for them", async () => {
    writeFileSync(join(h.project, ".env"), "KEY=1\n");
    mkdirSync(join(h.project, "sub"));
    writeFileSync(join(h.project, "notes.txt"), "hi\n");
    const { asked, ran } = await run(["cat notes.txt", "cat .env", "grep -r KEY ."], [{ outcome: "session" }, { outcome: "deny" }, { outcome: "deny" }]);
    expect(asked.map((a) => a.always)).toEqual(["cat commands, for this session", null, null]);
    expect(ran).toEqual(["cat notes.txt"]);
  });

  test("./test.sh allowed at the root still asks before vendor/x's test.sh", async () => {
    mkdirSync(join(h.project, "vendor", "x"), { recursive: true });
    writeFileSync(join(h.project, "test.sh"), "");
    writeFileSync(join(h.project, "vendor", "x", "test.sh"), "");
    const { asked, ran } = await run(["./test.sh", "cd vendor/x && ./test.sh"], [{ outcome: "session" }, { outcome: "deny" }]);
    expect(asked.map((a) => a.always)).toEqual(["./test.sh commands, for this session", null]);
    expect(ran).toEqual(["./test.sh"]);
  });
});

describe("auto mode still asks before a protected path or a write outside the project", () => {
  const auto = async (commands: string[], answers: PermissionDecision[]) => {
    h.model.push(...commands.map((command) => step({ toolCalls: [{ name: "bash", arguments: { command } }] })), step({ text: "ok" }));
    const session = await h.session({ mode: "auto" });
    const who = person(answers);
    session.interaction = who;
    await session.prompt({ text: "go" });
    const ran = ofType(h.events(session), "tool_start").map((e) => (e.args as { command: string }).command);
    return { asked: who.asked, ran };
  };

  test("cat .env, a glob that matches it, and a redirect outside ask; plain commands and unknowable words run", async () => {
    writeFileSync(join(h.project, ".env"), "KEY=1\n");
    mkdirSync(join(h.project, "sub"));
    const { asked, ran } = await auto(
      ["cat .env", "cat .env*", "echo hi > /tmp/lembas-auto-outside", "cd sub && cat ../.env", "ls", "echo $HOME", "echo ok > inside.txt"],
      [],
    );
    expect(asked.map((a) => (a.rawInput as { command: string }).command)).toEqual(["cat .env", "cat .env*", "echo hi > /tmp/lembas-auto-outside", "cd sub && cat ../.env"]);
    expect(asked.every((a) => a.always === null)).toBe(true);
    expect(ran).toEqual(["ls", "echo $HOME", "echo ok > inside.txt"]);
  });
});

describe("auto mode's check cannot be stepped round", () => {
  const decideAuto = async (command: string) => {
    const { decide } = await import("../../src/engine/permissions.ts");
    const { protectedPaths } = await import("../../src/project/protected.ts");
    return decide({ mode: "auto", permission: "exec", toolName: "bash", paths: [], command, cwd: h.project, root: h.project, protectedPaths: protectedPaths([], []), allowed: new Set() });
  };

  test("a cd out of the project, a substitution elsewhere in the line, a read redirect, >& to a file: each asks", async () => {
    writeFileSync(join(h.project, ".env"), "KEY=1\n");
    for (const line of [
      "cd /tmp && echo hi > x",
      "cd .. && echo x > y",
      "true $(true); cat .env",
      "cat .env; echo \"$(date)\"",
      "diff <(cat .env) x",
      "echo `cat .env`",
      "cat < .env",
      "cat 0<.env",
      "echo x >& /tmp/lembas-auto-y",
    ]) {
      expect({ line, action: (await decideAuto(line)).action }).toEqual({ line, action: "ask" });
    }
  });

  test("common commands still run unasked in auto mode", async () => {
    for (const line of ["git status", "npm test", "ls -la", "cat README.md", "echo $X > out.txt", "ls 2>/dev/null", "echo hi >&2", "bun test 2>&1 | tail", "echo \"$(date)\" > stamp.txt", "cd src && ls"]) {
      expect({ line, action: (await decideAuto(line)).action }).toEqual({ line, action: "allow" });
    }
  });

  test("a line of many cds stops being judged past a few dozen places, and asks", async () => {
    mkdirSync(join(h.project, "src"), { recursive: true });
    // Each cd may fail, so every directory seen stays possible: without a bound, 240 cds took seconds.
    const decision = await decideAuto(`${"cd src && cd .. && ".repeat(120)}ls`);
    expect(decision.action).toBe("ask");
    expect(decision.reason).toContain("where it cannot be told");
  });
});
