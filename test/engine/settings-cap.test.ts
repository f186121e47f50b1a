/**
 * The settings tool in a turn capped below its session (a web prompt in a terminal's shared
 * session, at most remote.max_mode): a mode is lowered to the turn's cap, whoever approves it.
 */
import { afterEach, expect, test } from "bun:test";
import { type EngineHarness, engineHarness, ofType, person, step } from "../support/engine.ts";

let h: EngineHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

test("a web turn capped at edit cannot raise the terminal's session to auto, even when the raise is approved", async () => {
  h = await engineHarness();
  const session = await h.session({ mode: "manual" });
  const yes = person([{ outcome: "once" }, { outcome: "once" }]);
  session.interaction = yes;
  h.model.push(step({ toolCalls: [{ name: "settings", arguments: { action: "set", mode: "auto" } }] }), step({ text: "ok" }));
  await session.prompt({ text: "go faster", maxMode: "edit" });
  expect(yes.asked.map((r) => r.title)).toEqual(["Switch to edit mode"]);
  expect(session.mode).toBe("edit");
  expect(ofType(h.events(session), "tool_end")[0]?.output).toContain("mode edit (lowered from auto by the device's limits)");
});

test("a capped turn asking for auto in a session already in auto leaves it there: a limit never lowers it", async () => {
  h = await engineHarness();
  const session = await h.session({ mode: "auto" });
  session.interaction = person();
  h.model.push(step({ toolCalls: [{ name: "settings", arguments: { action: "set", mode: "auto" } }] }), step({ text: "ok" }));
  await session.prompt({ text: "stay", maxMode: "edit" });
  expect(session.mode).toBe("auto");
});

test("the terminal's own turn (no cap) raises it as asked", async () => {
  h = await engineHarness();
  const session = await h.session({ mode: "manual" });
  session.interaction = person([{ outcome: "once" }]);
  h.model.push(step({ toolCalls: [{ name: "settings", arguments: { action: "set", mode: "auto" } }] }), step({ text: "ok" }));
  await session.prompt({ text: "go faster" });
  expect(session.mode).toBe("auto");
});
