/**
 * A plan approved in a turn capped below its session (a web prompt in a terminal's shared session,
 * at most remote.max_mode): the session leaves plan mode for the mode chosen lowered to the turn's
 * cap as well as its own, whoever approves it (the rule the settings tool follows: mode-cap.ts).
 */
import { afterEach, expect, test } from "bun:test";
import type { Interaction } from "../../src/engine/interaction.ts";
import type { PlanOutcome } from "../../src/tools/tool.ts";
import { type EngineHarness, engineHarness, ofType, person, step } from "../support/engine.ts";

let h: EngineHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** Somebody who approves every plan in `mode`. */
function approver(mode: "edit" | "manual"): Interaction {
  return { ...person(), plan: async (): Promise<PlanOutcome> => ({ outcome: "approve", mode }) };
}

const submit = step({ toolCalls: [{ name: "plan_submit", arguments: { plan: "# Fix\n\n1. edit a.ts" } }] });

test("a plan approved in edit from a web turn capped at manual puts the terminal's session in manual", async () => {
  h = await engineHarness();
  const session = await h.session({ mode: "plan" });
  session.interaction = approver("edit");
  h.model.push(submit, step({ text: "ok" }));
  await session.prompt({ text: "plan it", maxMode: "manual" });
  expect(session.mode).toBe("manual");
  expect(ofType(h.events(session), "tool_end")[0]?.output).toContain("the session is now in manual mode");
});

test("a plan approved from a web turn capped at plan approves nothing: the session stays in plan", async () => {
  h = await engineHarness();
  const session = await h.session({ mode: "plan" });
  session.interaction = approver("edit");
  h.model.push(submit, step({ text: "ok" }));
  await session.prompt({ text: "plan it", maxMode: "plan" });
  expect(session.mode).toBe("plan");
  expect(ofType(h.events(session), "tool_end")[0]?.output).toContain("The person dismissed the plan");
});

test("the terminal's own turn (no cap) leaves plan mode for the mode approved", async () => {
  h = await engineHarness();
  const session = await h.session({ mode: "plan" });
  session.interaction = approver("edit");
  h.model.push(submit, step({ text: "ok" }));
  await session.prompt({ text: "plan it" });
  expect(session.mode).toBe("edit");
  expect(ofType(h.events(session), "tool_end")[0]?.output).toContain("the session is now in edit mode");
});
