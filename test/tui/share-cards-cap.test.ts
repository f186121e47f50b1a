/** The web's answers to a shared session's approvals, capped at remote.max_mode (tui/share-cards.ts). */
import { describe, expect, test } from "bun:test";
import type { PermissionRequest } from "../../src/engine/interaction.ts";
import { cappedDecision } from "../../src/tui/share-cards.ts";

const request = (over: Partial<PermissionRequest>): PermissionRequest => ({
  sessionId: "ses_1",
  callId: "call_1",
  toolName: "bash",
  title: "Run make",
  kind: "execute",
  rawInput: { command: "make" },
  command: { line: "make", cwd: "/p" },
  reason: "edit mode asks before running commands",
  always: null,
  ...over,
});

describe("a web approval capped at remote.max_mode", () => {
  test("under plan, a command, a file change or an MCP tool is denied, with the reason; a read or a fetch is approved", () => {
    for (const kind of ["execute", "edit", "delete", "move", "other"] as const) {
      const decision = cappedDecision(request({ kind }), { outcome: "session" }, "plan");
      expect(decision).toEqual({ outcome: "deny", feedback: expect.stringContaining("remote.max_mode plan") });
    }
    for (const kind of ["read", "search", "fetch"] as const) {
      expect(cappedDecision(request({ kind, command: undefined }), { outcome: "once" }, "plan")).toEqual({ outcome: "once" });
    }
  });

  test("a denial stays the web's denial, with its words", () => {
    expect(cappedDecision(request({}), { outcome: "deny", feedback: "not now" }, "plan")).toEqual({ outcome: "deny", feedback: "not now" });
  });

  test("a corrected command is taken under auto only; a plain approval under edit is", () => {
    expect(cappedDecision(request({}), { outcome: "once", command: "make test" }, "edit").outcome).toBe("deny");
    expect(cappedDecision(request({}), { outcome: "once", command: "make test" }, "manual").outcome).toBe("deny");
    expect(cappedDecision(request({}), { outcome: "once", command: "make test" }, "auto")).toEqual({ outcome: "once", command: "make test" });
    expect(cappedDecision(request({}), { outcome: "once" }, "edit")).toEqual({ outcome: "once" });
  });

  test("a mode switch above the cap is denied; one within it is approved", () => {
    const toAuto = request({ toolName: "settings", kind: "switch_mode", title: "Switch to auto mode", rawInput: { mode: "auto" }, command: undefined });
    expect(cappedDecision(toAuto, { outcome: "once" }, "edit")).toEqual({ outcome: "deny", feedback: expect.stringContaining("above the device's limit") });
    const toEdit = request({ toolName: "settings", kind: "switch_mode", title: "Switch to edit mode", rawInput: { mode: "edit" }, command: undefined });
    expect(cappedDecision(toEdit, { outcome: "once" }, "edit")).toEqual({ outcome: "once" });
  });
});
