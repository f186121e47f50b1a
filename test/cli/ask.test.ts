import { describe, expect, test } from "bun:test";
import { approvalText } from "../../src/cli/ask.ts";
import type { PermissionRequest } from "../../src/engine/interaction.ts";

const base = { sessionId: "ses_1", callId: "call_1", always: null } as const;

describe("an approval at the terminal", () => {
  test("a command shows what runs and where first, the model's description after", () => {
    const request: PermissionRequest = {
      ...base,
      toolName: "bash",
      title: "Run echo secret > out.txt && cat out.txt",
      kind: "execute",
      rawInput: {},
      command: { line: "echo secret > out.txt && cat out.txt", cwd: "/home/p/project" },
      description: "write out.txt",
      reason: "edit mode asks before running commands",
      always: "echo and cat commands, for this session",
    };
    expect(approvalText(request)).toBe(
      [
        "",
        "bash wants to run, in /home/p/project:",
        "  $ echo secret > out.txt && cat out.txt",
        "  (the model describes it as: write out.txt)",
        "  edit mode asks before running commands",
        "  allow? [y]es once / [a]lways (echo and cat commands, for this session) / [n]o / [ns] no, for this session: ",
      ].join("\n"),
    );
  });

  test("an MCP tool's call shows all of its arguments, its control characters written out", () => {
    const text = `${"every word of this is seen ".repeat(8)}the end\u202e`;
    const request: PermissionRequest = {
      ...base,
      toolName: "mcp__notes__echo",
      title: `notes: echo {"text":"${text.slice(0, 60)}…`,
      kind: "other",
      rawInput: { text },
      reason: "edit mode asks before running commands",
    };
    expect(approvalText(request)).toContain(`  {\n    "text": "${text.replace("\u202e", "\\u202e")}"\n  }\n`);
  });

  test("a command of several lines shows every line", () => {
    const request: PermissionRequest = {
      ...base,
      toolName: "bash",
      title: "Run cd pkg…",
      kind: "execute",
      rawInput: {},
      command: { line: "cd pkg\nnpm test", cwd: "/p" },
      reason: "edit mode asks before running commands",
    };
    expect(approvalText(request)).toContain("bash wants to run, in /p:\n  $ cd pkg\n    npm test\n  edit mode");
  });

  test("an edit shows its diff", () => {
    const request: PermissionRequest = {
      ...base,
      toolName: "edit",
      title: "Edit a.txt",
      kind: "edit",
      rawInput: {},
      diffs: [{ path: "/p/a.txt", oldText: "one\ntwo\nthree\n", newText: "one\nTWO\nthree\n" }],
      reason: "manual mode asks before changing files",
    };
    expect(approvalText(request)).toBe(
      ["", "Edit a.txt", "  @@ -1,3 +1,3 @@", "   one", "  -two", "  +TWO", "   three", "  manual mode asks before changing files", "  allow? [y]es once / [n]o: "].join("\n"),
    );
  });

  test("a new file shows that it is new, and its lines", () => {
    const request: PermissionRequest = {
      ...base,
      toolName: "write",
      title: "Write b.txt",
      kind: "edit",
      rawInput: {},
      diffs: [{ path: "/p/b.txt", oldText: null, newText: "hi\n" }],
      reason: "manual mode asks before changing files",
    };
    expect(approvalText(request)).toContain("Write b.txt\n  (a new file)\n  @@ -0,0 +1,1 @@\n  +hi\n");
  });

  test("control characters and bidi overrides in what the model wrote are shown, not obeyed", () => {
    const request: PermissionRequest = {
      ...base,
      toolName: "bash",
      title: "Run …",
      kind: "execute",
      rawInput: {},
      command: { line: "rm -rf ~ #\x1b[2K\r$ ls \u202e", cwd: "/p" },
      description: "list\x1b[1A",
      reason: "edit mode asks before running commands",
    };
    const text = approvalText(request);
    expect(text).toContain("  $ rm -rf ~ #\\x1b[2K\\x0d$ ls \\u202e\n");
    expect(text).toContain("(the model describes it as: list\\x1b[1A)");
    expect(text).not.toMatch(/[\x1b\r\u202e]/);
  });
});
