import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { type EngineHarness, engineHarness, ofType, person, step } from "../support/engine.ts";
import { alive, waitUntil } from "../support/procs.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());

const background = (command: string) => step({ toolCalls: [{ name: "bash", arguments: { command, run_in_background: true } }] });

describe.skipIf(!existsSync("/proc"))("a session's background jobs", () => {
  test("outlive the turn, belong to their session, and stop when it is let go of; the other session's at the engine's stop", async () => {
    const one = await h.session({ mode: "auto" });
    h.model.push(background("sleep 100"), step({ text: "started" }));
    await one.prompt({ text: "start it" });
    const two = await h.session({ mode: "auto" });
    h.model.push(background("sleep 100"), step({ toolCalls: [{ name: "job", arguments: { action: "list" } }] }), step({ text: "started" }));
    await two.prompt({ text: "start it" });
    const pidOf = (s: typeof one) => Number(ofType(h.events(s), "tool_end")[0]?.meta?.pid);
    const [a, b] = [pidOf(one), pidOf(two)];
    expect(alive(a) && alive(b)).toBe(true);
    // Each session lists its own jobs only: both are job1.
    expect(ofType(h.events(two), "tool_end")[1]?.output).toMatch(/^job1 {2}running [^\n]*sleep 100$/);

    await h.engine.release(one.id);
    expect(await waitUntil(() => !alive(a), 4_000)).toBe(true);
    expect(alive(b)).toBe(true);
    await h.engine.stop();
    expect(alive(b)).toBe(false);
  });

  test("starting one asks like any command in edit mode, the approval showing the command; refused, nothing starts", async () => {
    const session = await h.session({ mode: "edit" });
    const who = person([{ outcome: "deny" }]);
    session.interaction = who;
    h.model.push(background("sleep 100"), step({ text: "not then" }));
    await session.prompt({ text: "start it" });
    expect(who.asked.map((r) => [r.toolName, r.title])).toEqual([["bash", "Start in the background: sleep 100"]]);
    expect(ofType(h.events(session), "tool_denied").map((e) => e.title)).toEqual(["Start in the background: sleep 100"]);
    expect(ofType(h.events(session), "tool_end")).toEqual([]);
  });
});
