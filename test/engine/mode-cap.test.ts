/**
 * The one rule for how high a mode goes (src/engine/mode-cap.ts): a turn works in the session's
 * mode lowered to its own cap; a mode the session is put in is lowered to every cap that holds.
 */
import { describe, expect, test } from "bun:test";
import { Mode } from "../../src/config/schema.ts";
import { cappedMode, turnMode } from "../../src/engine/mode-cap.ts";

const ORDER: readonly Mode[] = ["plan", "manual", "edit", "auto"];
const lower = (a: Mode, b: Mode): Mode => (ORDER.indexOf(a) <= ORDER.indexOf(b) ? a : b);

describe("the mode cap", () => {
  test("modes are lowered to the limit", () => {
    expect(cappedMode("auto", "edit")).toBe("edit");
    expect(cappedMode("manual", "edit")).toBe("manual");
    expect(cappedMode("edit", "plan")).toBe("plan");
  });

  test("a turn with no cap works in the session's mode, whatever it is", () => {
    for (const mode of Mode.options) expect(turnMode(mode, null)).toBe(mode);
  });

  test("a turn with a cap works in the lower of the session's mode and its cap", () => {
    for (const session of Mode.options) {
      for (const cap of Mode.options) expect(turnMode(session, cap)).toBe(lower(session, cap));
    }
  });

  test("a web turn capped at edit in a terminal's session in auto works in edit; the session keeps auto", () => {
    expect(turnMode("auto", "edit")).toBe("edit");
    expect(cappedMode("auto", "auto")).toBe("auto");
  });

  test("a change is lowered to the lowest of every cap given, in any order", () => {
    expect(cappedMode("auto", "auto", "manual")).toBe("manual");
    expect(cappedMode("auto", "manual", "auto")).toBe("manual");
    expect(cappedMode("auto", "edit", "plan", "auto")).toBe("plan");
    expect(cappedMode("manual", "edit", "auto")).toBe("manual");
  });

  test("an absent cap (a turn that has none) caps nothing", () => {
    expect(cappedMode("auto", "auto", undefined)).toBe("auto");
    expect(cappedMode("edit", null, "auto")).toBe("edit");
    expect(cappedMode("edit")).toBe("edit");
    expect(cappedMode("auto", undefined, "edit")).toBe("edit");
  });

  test("plan is under every cap: asking for it is never refused", () => {
    for (const cap of Mode.options) expect(cappedMode("plan", cap)).toBe("plan");
  });
});
