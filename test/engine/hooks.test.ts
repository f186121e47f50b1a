import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { matches } from "../../src/engine/hook-set.ts";
import { approveProjectHooks, projectHooks } from "../../src/engine/project-hooks.ts";
import { trustDir, untrustDir } from "../../src/store/trust.ts";
import { type EngineHarness, engineHarness, helperStep, isHelper, isStep, isSummary, ofType, ownStep, person, step } from "../support/engine.ts";
import { contentText } from "../support/model.ts";

let h: EngineHarness | null = null;
/** Where the hooks' scripts and logs are written (outside the harness's sandbox, which is made after them). */
let scripts: string;
beforeEach(() => {
  scripts = mkdtempSync(join(tmpdir(), "lembas-hooks-"));
});
afterEach(async () => {
  await h?.close();
  h = null;
  rmSync(scripts, { recursive: true, force: true });
});

/** A harness whose every listed event has one hook that appends its stdin, a line, to a log; the log's path. */
async function logging(events: string[], extra: Record<string, unknown> = {}): Promise<{ h: EngineHarness; log: () => Record<string, unknown>[] }> {
  const script = join(scripts, "log.sh");
  const logFile = join(scripts, "log.jsonl");
  // One write a line: hooks of one event may run at once.
  writeFileSync(script, `#!/bin/sh\nline=$(cat)\nprintf '%s\\n' "$line" >> ${logFile}\n`);
  chmodSync(script, 0o755);
  const hooks = Object.fromEntries(events.map((event) => [event, [{ hooks: [{ type: "command", command: script }] }]]));
  h = await engineHarness({ config: { hooks: { ...hooks, ...extra } } });
  const log = () => (existsSync(logFile) ? readFileSync(logFile, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : []);
  return { h, log };
}

describe("hook events of a session's life", () => {
  test("SessionStart runs once, at the first prompt, and what it prints reaches the model with it", async () => {
    const script = join(scripts, "start.sh");
    writeFileSync(script, "#!/bin/sh\ncat >/dev/null\necho 'START-CONTEXT: the main branch is frozen'\n");
    chmodSync(script, 0o755);
    h = await engineHarness({ config: { hooks: { SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: script }] }] } } });
    h.model.push(step({ text: "one" }), step({ text: "two" }));
    const session = await h.session();
    await session.prompt({ text: "first" });
    await session.prompt({ text: "second" });
    const steps = h.model.requests.filter((r) => isStep(r.body)).map((r) => r.body.messages ?? []);
    const users = (i: number) => (steps[i] ?? []).filter((m) => m.role === "user").map((m) => contentText(m.content));
    expect(users(0).join("\n")).toContain("START-CONTEXT: the main branch is frozen");
    // Once: the second prompt carries no second copy.
    expect(users(1).join("\n").split("START-CONTEXT").length).toBe(2);
    // The person's own words are what they see.
    expect(ofType(h.events(session), "prompt").map((e) => e.text)).toEqual(["first", "second"]);
  });

  test("Notification when an approval or a question waits and when a turn ended; PreCompact before /compact; SessionEnd as the engine stops", async () => {
    const { h, log } = await logging(["Notification", "PreCompact", "SessionEnd"]);
    const question = { questions: [{ header: "Database", question: "Which one?", options: [{ label: "sqlite" }, { label: "postgres" }] }] };
    h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] }), step({ toolCalls: [{ name: "ask_user", arguments: question }] }), step({ text: "done" }));
    const session = await h.session({ mode: "manual" });
    session.interaction = person([{ outcome: "once" }]);
    await session.prompt({ text: "say hi" });
    h.model.push({ match: isSummary, text: "SUMMARY" });
    await session.compact();
    await h.engine.stop();
    const seen = log().map((e) => [e.hook_event_name, e.notification_type ?? e.trigger ?? e.reason ?? null]);
    expect(seen).toEqual(expect.arrayContaining([["Notification", "permission_prompt"], ["Notification", "elicitation_dialog"], ["Notification", "idle_prompt"], ["PreCompact", "manual"], ["SessionEnd", "other"]]));
    expect(log().every((e) => e.session_id === session.id && typeof e.cwd === "string")).toBe(true);
  });
});

describe("PreToolUse's ask", () => {
  test("a call the mode runs unasked is asked about, with the hook's reason; the person's No refuses it", async () => {
    const script = join(scripts, "ask.sh");
    writeFileSync(script, `#!/bin/sh\ncat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"reading .env needs a human"}}'\n`);
    chmodSync(script, 0o755);
    h = await engineHarness({ config: { hooks: { PreToolUse: [{ matcher: "read", hooks: [{ type: "command", command: script }] }] } } });
    writeFileSync(join(h.project, "notes.txt"), "NOTES\n");
    h.model.push(step({ toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] }), step({ text: "done" }));
    const session = await h.session({ mode: "auto" });
    const asker = person([{ outcome: "deny" }]);
    session.interaction = asker;
    await session.prompt({ text: "read it" });
    expect(asker.asked.map((r) => [r.toolName, r.reason])).toEqual([["read", "reading .env needs a human"]]);
    expect(ofType(h.events(session), "tool_start")).toHaveLength(0);
  });
});

describe("a helper's calls", () => {
  test("the session's PreToolUse hooks judge the task helper's calls too", async () => {
    const script = join(scripts, "guard.sh");
    writeFileSync(script, `#!/bin/sh\ninput=$(cat)\ncase "$input" in *secret.txt*) echo "secret.txt is off limits" >&2; exit 2;; esac\nexit 0\n`);
    chmodSync(script, 0o755);
    h = await engineHarness({ config: { hooks: { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: script }] }] } } });
    writeFileSync(join(h.project, "secret.txt"), "TOP-SECRET\n");
    h.model.push(
      ownStep({ toolCalls: [{ name: "task", arguments: { description: "read the secret", prompt: "What does secret.txt say?" } }] }),
      helperStep({ toolCalls: [{ name: "read", arguments: { path: "secret.txt" } }] }),
      helperStep({ text: "I could not read it." }),
      ownStep({ text: "done" }),
    );
    const session = await h.session();
    await session.prompt({ text: "find out" });
    const helperTold = h.model.requests.filter((r) => isHelper(r.body)).flatMap((r) => (r.body.messages ?? []).filter((m) => m.role === "tool").map((m) => contentText(m.content)));
    expect(helperTold.join("\n")).toContain("secret.txt is off limits");
    expect(helperTold.join("\n")).not.toContain("TOP-SECRET");
  });
});

describe("a project's hooks in a long session", () => {
  test("a changed hook file, its approval and lembas untrust hold from the next turn", async () => {
    h = await engineHarness();
    const harness = h;
    const settings = join(harness.project, ".agent", "settings.json");
    const hookSaying = (word: string) => JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `cat >/dev/null; echo ${word}` }] }] } });
    const approve = () => {
      for (const file of projectHooks(harness.project, harness.db)) approveProjectHooks(harness.db, file);
    };
    mkdirSync(join(harness.project, ".agent"));
    writeFileSync(settings, hookSaying("CONTEXT-A"));
    trustDir(harness.db, harness.project);
    approve();
    for (let i = 0; i < 4; i++) h.model.push(step({ text: `answer ${i}` }));
    const session = await h.session();
    const told: string[] = [];
    const prompt = async (text: string) => {
      await session.prompt({ text });
      const last = h?.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
      told.push(contentText(last.findLast((m) => m.role === "user")?.content));
    };
    await prompt("one");
    writeFileSync(settings, hookSaying("CONTEXT-B"));
    await prompt("two");
    approve();
    await prompt("three");
    untrustDir(harness.db, harness.project);
    await prompt("four");
    expect(told.map((t) => (t.includes("CONTEXT-A") ? "A" : t.includes("CONTEXT-B") ? "B" : "-"))).toEqual(["A", "-", "B", "-"]);
    const notices = ofType(h.events(session), "notice").map((n) => n.message);
    expect(notices.filter((n) => n.includes("you have not approved them as they read now"))).toHaveLength(1);
    expect(notices.filter((n) => n.includes("is not trusted"))).toHaveLength(1);
  });

  test("the Makefile an approved `make check` runs is hashed again before every run: the model's rewrite in the second turn does not run", async () => {
    h = await engineHarness();
    const harness = h;
    const target = (mark: string) => `check:\n\techo ran >> ${join(scripts, mark)}\n`;
    mkdirSync(join(harness.project, ".agent"));
    writeFileSync(join(harness.project, ".agent", "settings.json"), JSON.stringify({ hooks: { PostToolUse: [{ matcher: "write", hooks: [{ type: "command", command: "make check" }] }] } }));
    writeFileSync(join(harness.project, "Makefile"), target("approved"));
    trustDir(harness.db, harness.project);
    for (const file of projectHooks(harness.project, harness.db)) approveProjectHooks(harness.db, file);
    const write = (path: string) => step({ toolCalls: [{ name: "write", arguments: { path, content: `${path}\n` } }] });
    h.model.push(write("a.txt"), step({ text: "one" }));
    h.model.push(step({ toolCalls: [{ name: "read", arguments: { path: "Makefile" } }] }), step({ toolCalls: [{ name: "write", arguments: { path: "Makefile", content: target("rewritten") } }] }), write("b.txt"), step({ text: "two" }));
    const session = await h.session({ mode: "edit" });
    await session.prompt({ text: "first" });
    expect(readFileSync(join(scripts, "approved"), "utf8")).toBe("ran\n");
    await session.prompt({ text: "second" });
    expect(readFileSync(join(harness.project, "Makefile"), "utf8")).toBe(target("rewritten"));
    expect(existsSync(join(scripts, "rewritten"))).toBe(false);
    const notices = ofType(h.events(session), "notice").map((n) => n.message);
    expect(notices.filter((n) => n.includes("you have not approved them and the project files they run as they read now"))).toHaveLength(1);
  });
});

describe("matchers", () => {
  test("names, names joined by |, Claude Code's names, regular expressions, and * for all", () => {
    expect(matches("bash", "bash")).toBe(true);
    expect(matches("Bash", "bash")).toBe(true);
    expect(matches("Edit|Write", "write")).toBe(true);
    expect(matches("Edit|Write", "bash")).toBe(false);
    expect(matches("mcp__github__.*", "mcp__github__create_issue")).toBe(true);
    expect(matches("mcp__github__.*", "mcp__gitlab__create_issue")).toBe(false);
    expect(matches("*", "anything")).toBe(true);
    expect(matches("", "anything")).toBe(true);
    expect(matches(undefined, "anything")).toBe(true);
    expect(matches("read", "multi_edit")).toBe(false);
  });
});
