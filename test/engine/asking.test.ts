import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type EngineHarness, engineHarness, isStep, ofType, step, person } from "../support/engine.ts";
import { contentText } from "../support/model.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());


const lastToolOutput = () => {
  const steps = h.model.requests.filter((r) => isStep(r.body));
  const messages = steps.at(-1)?.body.messages ?? [];
  return contentText(messages.findLast((m) => m.role === "tool")?.content);
};

describe("asking the person", () => {
  test("edit mode asks before a command; a denial with feedback reaches the model", async () => {
    h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }), step({ text: "ok" }));
    const session = await h.session({ mode: "edit" });
    const who = person([{ outcome: "deny", feedback: "use the Makefile" }]);
    session.interaction = who;
    await session.prompt({ text: "make a file" });
    expect(who.asked).toHaveLength(1);
    expect(who.asked[0]).toMatchObject({ toolName: "bash", kind: "execute", always: "touch commands, for this session" });
    expect(existsSync(join(h.project, "made.txt"))).toBe(false);
    // The person's No, not the rule that made lembas ask, in the event every front end shows and in what the model reads.
    expect(ofType(h.events(session), "tool_denied")[0]).toMatchObject({ name: "bash", reason: "denied by you", feedback: "use the Makefile" });
    expect(lastToolOutput()).toBe("The person denied this bash call. They said: use the Makefile Do not repeat it; adjust your approach.");
  });

  test("a corrected command runs once instead of the model's", async () => {
    h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch wrong.txt" } }] }), step({ text: "ok" }));
    const session = await h.session({ mode: "edit" });
    session.interaction = person([{ outcome: "once", command: "touch right.txt" }]);
    await session.prompt({ text: "make a file" });
    expect(existsSync(join(h.project, "right.txt"))).toBe(true);
    expect(existsSync(join(h.project, "wrong.txt"))).toBe(false);
    expect(lastToolOutput()).toContain("corrected the command to: touch right.txt");
  });

  test("allowed for the session is not asked again", async () => {
    h.model.push(
      step({ toolCalls: [{ name: "bash", arguments: { command: "touch a.txt" } }] }),
      step({ toolCalls: [{ name: "bash", arguments: { command: "touch b.txt" } }] }),
      step({ text: "ok" }),
    );
    const session = await h.session({ mode: "edit" });
    const who = person([{ outcome: "session" }]);
    session.interaction = who;
    await session.prompt({ text: "two files" });
    expect(who.asked).toHaveLength(1);
    expect(existsSync(join(h.project, "b.txt"))).toBe(true);
  });

  test("with nobody to ask, what would ask is refused and the model is told", async () => {
    h.model.push(step({ toolCalls: [{ name: "write", arguments: { path: "/tmp/lembas-outside-test.txt", content: "x" } }] }), step({ text: "ok" }));
    const session = await h.session({ mode: "edit" });
    const answer = await session.prompt({ text: "write outside" });
    expect(answer.stopReason).toBe("end_turn");
    expect(existsSync("/tmp/lembas-outside-test.txt")).toBe(false);
    // Nobody said No: the model is told it was refused and why, not that the person denied it.
    expect(lastToolOutput()).toBe("Refused: /tmp/lembas-outside-test.txt is outside the project; nobody can approve it in this session.");
    expect(ofType(h.events(session), "tool_denied")[0]).toMatchObject({ reason: "/tmp/lembas-outside-test.txt is outside the project", feedback: "nobody can approve it in this session" });
  });

  test("plan mode offers the tools every mode has (the request's start stays the same) and refuses a write the model tries", async () => {
    h.model.push(step({ toolCalls: [{ name: "write", arguments: { path: "x.txt", content: "x" } }] }), step({ text: "ok" }), step({ text: "ok" }));
    const session = await h.session({ mode: "plan" });
    await session.prompt({ text: "plan it" });
    expect(existsSync(join(h.project, "x.txt"))).toBe(false);
    expect(lastToolOutput()).toContain("plan mode does not allow changing files: submit a plan with plan_submit");
    session.setMode("edit");
    await session.prompt({ text: "now do it" });
    const [plan, , edit] = h.model.requests.filter((r) => isStep(r.body)).map((r) => JSON.stringify(r.body.tools));
    expect(plan).toContain('"plan_submit"');
    expect(plan).toContain('"write"');
    expect(edit).toBe(plan);
  });

  test("plan_submit outside plan mode is refused with the mode the session is in", async () => {
    h.model.push(step({ toolCalls: [{ name: "plan_submit", arguments: { plan: "# Plan\n- do it" } }] }), step({ text: "ok" }));
    const session = await h.session({ mode: "edit" });
    await session.prompt({ text: "go" });
    expect(lastToolOutput()).toContain("plan_submit is for plan mode, and the session is in edit mode");
    expect(existsSync(join(h.project, ".agent"))).toBe(false);
  });

  test("manual mode asks before every write", async () => {
    h.model.push(step({ toolCalls: [{ name: "write", arguments: { path: "x.txt", content: "x" } }] }), step({ text: "ok" }));
    const session = await h.session({ mode: "manual" });
    const who = person([{ outcome: "once" }]);
    session.interaction = who;
    await session.prompt({ text: "write" });
    expect(who.asked[0]).toMatchObject({ toolName: "write", kind: "edit" });
    expect(readFileSync(join(h.project, "x.txt"), "utf8")).toBe("x");
  });
});

describe("symlinks", () => {
  test("a write through a symlink that leads out of the project asks, even in auto mode", async () => {
    const { mkdirSync, symlinkSync } = await import("node:fs");
    const outside = join(h.box.dir, "outside");
    mkdirSync(outside);
    symlinkSync(outside, join(h.project, "docs"));
    h.model.push(step({ toolCalls: [{ name: "write", arguments: { path: "docs/.bashrc", content: "evil" } }] }), step({ text: "ok" }));
    const session = await h.session({ mode: "auto" });
    const who = person([{ outcome: "deny" }]);
    session.interaction = who;
    await session.prompt({ text: "write" });
    expect(who.asked[0]?.reason).toContain("outside the project");
    expect(existsSync(join(outside, ".bashrc"))).toBe(false);
  });

  test("a read through a symlink to a protected file asks", async () => {
    const { writeFileSync, symlinkSync } = await import("node:fs");
    writeFileSync(join(h.project, ".env"), "SECRET=1\n");
    symlinkSync(join(h.project, ".env"), join(h.project, "notes.txt"));
    h.model.push(step({ toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] }), step({ text: "ok" }));
    const session = await h.session({ mode: "auto" });
    const who = person([{ outcome: "deny" }]);
    session.interaction = who;
    await session.prompt({ text: "read" });
    expect(who.asked[0]?.reason).toContain("protected");
    expect(lastToolOutput()).not.toContain("SECRET");
  });
});
