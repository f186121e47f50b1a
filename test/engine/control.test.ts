import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { listMessages } from "../../src/store/messages.ts";
import { type EngineHarness, engineHarness, isStep, isSummary, ofType, step } from "../support/engine.ts";
import { contentText } from "../support/model.ts";

/** Whether a `sleep SECONDS` runs (ps: on Linux and macOS alike). */
function sleeping(seconds: string): boolean {
  const ps = Bun.spawnSync(["ps", "-axo", "stat=,args="], { stdout: "pipe" }).stdout.toString();
  return ps.split("\n").some((line) => {
    const [stat = "", ...args] = line.trim().split(/\s+/);
    return !stat.startsWith("Z") && args.join(" ") === `sleep ${seconds}`;
  });
}

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());

const waitFor = async (check: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await Bun.sleep(10);
  }
};

describe("cancel", () => {
  test("mid-stream: answers cancelled, keeps what was said, and the session goes on", async () => {
    h.model.push(step({ text: ["first words", " and", " more", " and more"], chunkDelayMs: 300 }), step({ text: "next answer" }));
    const session = await h.session();
    const turn = session.prompt({ text: "talk" });
    await waitFor(() => ofType(h.events(session), "text").length > 0);
    session.cancel();
    const answer = await turn;
    expect(answer.stopReason).toBe("cancelled");
    const assistant = listMessages(h.db, session.id).find((m) => m.role === "assistant");
    expect(assistant?.body).toMatchObject({ text: expect.stringMatching(/^first words/), partial: true });
    const next = await session.prompt({ text: "again" });
    expect(next.stopReason).toBe("end_turn");
  });

  test("mid-bash: the command's whole process group is killed at once", async () => {
    const marker = join(h.project, "started.txt");
    // Found by its argument: in the sandbox's PID namespace $! is not a pid this process knows.
    const seconds = `60.${process.pid}`;
    h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: `sleep ${seconds} & echo up > ${marker}; wait` } }] }));
    const session = await h.session({ mode: "auto" });
    const turn = session.prompt({ text: "sleep" });
    await waitFor(() => existsSync(marker) && readFileSync(marker, "utf8").trim().length > 0);
    await waitFor(() => sleeping(seconds));
    session.cancel();
    // A group left running would keep the turn on `wait` for 60 s and time the test out.
    const answer = await turn;
    expect(answer.stopReason).toBe("cancelled");
    await waitFor(() => !sleeping(seconds));
    const result = listMessages(h.db, session.id).find((m) => m.role === "tool");
    expect(result).toBeDefined();
  });
});

describe("steering", () => {
  test("attack: a call that failed twice runs again after the person spoke in the turn (they may have fixed the cause): the loop guard starts again", async () => {
    const missing = { path: "later.txt" };
    h.model.push(
      step({ toolCalls: [{ id: "r1", name: "read", arguments: missing }] }),
      step({ toolCalls: [{ id: "r2", name: "read", arguments: missing }], chunkDelayMs: 300 }),
      step({ toolCalls: [{ id: "r3", name: "read", arguments: missing }] }),
      step({ text: "done" }),
    );
    const session = await h.session({ mode: "auto" });
    const turn = session.prompt({ text: "read later.txt" });
    await h.model.waitForRequests(2);
    expect(session.steer("I fixed it, read it once more", "m1")).toEqual({ queued: 1 });
    expect(await turn).toMatchObject({ stopReason: "end_turn" });
    expect(ofType(h.events(session), "tool_denied")).toEqual([]);
    expect(ofType(h.events(session), "tool_start").map((e) => e.callId)).toEqual(["r1", "r2", "r3"]);
  });

  test("a message sent while the turn works is given to the model at its next step", async () => {
    h.model.push(
      step({ toolCalls: [{ name: "bash", arguments: { command: "sleep 0.5; echo done" } }] }),
      step({ text: "took it in" }),
    );
    const session = await h.session({ mode: "auto" });
    const turn = session.prompt({ text: "work" });
    await waitFor(() => ofType(h.events(session), "tool_start").length > 0);
    expect(session.steer("also add tests", "m1")).toEqual({ queued: 1 });
    const answer = await turn;
    expect(answer).toMatchObject({ stopReason: "end_turn" });
    expect(answer.unsent).toBeUndefined();
    expect(ofType(h.events(session), "steered")[0]).toEqual({ type: "steered", texts: ["also add tests"], ids: ["m1"] });
    const second = h.model.requests.filter((r) => isStep(r.body))[1]?.body.messages ?? [];
    expect(contentText(second.at(-1)?.content)).toBe("also add tests");
  });

  test("messages the turn ended before taking in come back as unsent", async () => {
    h.model.push(step({ text: ["slow", " answer", " here"], chunkDelayMs: 300 }));
    const session = await h.session();
    const turn = session.prompt({ text: "go" });
    await waitFor(() => ofType(h.events(session), "text").length > 0);
    session.steer("one more thing");
    session.cancel();
    const answer = await turn;
    expect(answer).toMatchObject({ stopReason: "cancelled", unsent: ["one more thing"] });
  });

  test("steering with nothing running is refused", async () => {
    const session = await h.session();
    expect(() => session.steer("hello")).toThrow(/nothing is running/);
  });
});

describe("compaction", () => {
  test("/compact replaces the history the model sees with a summary; the store keeps everything", async () => {
    h.model.push(step({ text: "first answer" }), step({ text: "second answer" }));
    const session = await h.session();
    await session.prompt({ text: "first question" });
    await session.idle();
    h.model.push({ match: isSummary, text: "SUMMARY: asked a first question." });
    const { summary } = await session.compact();
    expect(summary).toBe("SUMMARY: asked a first question.");
    expect(ofType(h.events(session), "compacted")[0]).toMatchObject({ summary, auto: false });
    await session.prompt({ text: "second question" });
    const last = h.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
    const text = last.map((m) => contentText(m.content)).join("\n");
    expect(text).toContain("SUMMARY: asked a first question.");
    expect(text).not.toContain("first question\n");
    expect(text).not.toContain("first answer");
    expect(listMessages(h.db, session.id).length).toBe(4);
  });

  test("near the model's context limit the history is compacted automatically", async () => {
    await h.close();
    h = await engineHarness({ models: [{ id: "test-model", context_length: 1000 }] });
    h.model.push(
      step({ toolCalls: [{ name: "list", arguments: {} }], usage: { prompt_tokens: 900, completion_tokens: 5 } }),
      { match: isSummary, text: "SUMMARY: listed the project." },
      step({ text: "continuing" }),
    );
    const session = await h.session();
    const answer = await session.prompt({ text: "look around" });
    expect(answer.stopReason).toBe("end_turn");
    expect(ofType(h.events(session), "compacted")[0]).toMatchObject({ auto: true, summary: "SUMMARY: listed the project." });
    const last = h.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
    expect(last.map((m) => contentText(m.content)).join("\n")).toContain("SUMMARY: listed the project.");
    // The model sees the summary; the store keeps the whole history.
    expect(listMessages(h.db, session.id).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  test("compacting while a turn runs is refused", async () => {
    h.model.push(step({ text: ["a", "b", "c"], chunkDelayMs: 200 }));
    const session = await h.session();
    const turn = session.prompt({ text: "go" });
    await expect(session.compact()).rejects.toThrow(/working/);
    await turn;
  });
});
