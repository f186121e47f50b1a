import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { boundedHistory, HISTORY_ANSWER_BYTES } from "../../src/acp/history-answer.ts";
import type { HistoryTurn } from "../../src/transcript/history-turns.ts";
import { openDb } from "../../src/store/db.ts";
import { appendMessage } from "../../src/store/messages.ts";
import { insertSession } from "../../src/store/sessions.ts";
import { type Device, startDevice } from "../support/device.ts";

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const assistant = (text: string, reasoning = "", tools: Extract<HistoryTurn, { role: "assistant" }>["tools"] = []): HistoryTurn => ({ role: "assistant", text, reasoning, tools });

describe("_lembas/session/history over the link", () => {
  let d: Device;
  afterEach(() => d.close());

  test("a session that stored more than one answer may carry is answered under the cap, saying what was cut; asked again, the same", async () => {
    d = await startDevice();
    const db = openDb(join(d.box.stateDir, "lembas.db"));
    insertSession(db, { id: "ses_flood", root: d.project, cwd: d.project, mode: "edit", model: null, effort: "medium", origin: "terminal" });
    appendMessage(db, "ses_flood", "user", { text: "think hard" }, "t-1");
    // A step stored before its reasoning was bounded: more than one answer may carry.
    const reasoning = `START${"r".repeat(HISTORY_ANSWER_BYTES + 512 * 1024)}END`;
    appendMessage(db, "ses_flood", "assistant", { text: "done thinking", reasoning, toolCalls: [] }, "t-1");
    db.close();
    const link = await d.serve();

    for (let ask = 0; ask < 2; ask++) {
      const history = (await link.request("_lembas/session/history", { sessionId: "ses_flood" }, 20_000)) as { turns: { role: string; text: string; reasoning?: string }[] };
      expect(bytes({ jsonrpc: "2.0", id: 1, result: history })).toBeLessThan(HISTORY_ANSWER_BYTES);
      expect(history.turns.map((t) => [t.role, t.text])).toEqual([
        ["user", "think hard"],
        ["assistant", "done thinking"],
      ]);
      const kept = history.turns[1]?.reasoning ?? "";
      expect(kept.startsWith("STARTrrr")).toBe(true);
      expect(kept.endsWith("rrrEND")).toBe(true);
      expect(kept).toMatch(/\n\[… [\d,]+ characters left out here: one history answer carries at most 8 MB; the whole text stays on the device\]\n/);
    }
  }, 30_000);
});

describe("boundedHistory", () => {
  const cap = 64 * 1024;

  test("a history that fits is answered as it is", () => {
    const turns: HistoryTurn[] = [{ role: "user", text: "hi", turnId: "t" }, assistant("hello", "hm", [{ id: "c", name: "read", args: { path: "a" }, output: "x".repeat(1000), isError: false }])];
    expect(boundedHistory(turns, cap)).toEqual(turns);
  });

  test("the longest texts are cut, to one length, with their heads and tails; the short ones stay whole", () => {
    const long = (c: string, n: number) => `<${c.repeat(n)}>`;
    const turns: HistoryTurn[] = [
      { role: "user", text: "short question" },
      assistant("short answer", long("r", 100_000), [
        { id: "a", name: "read", args: { path: "big" }, output: long("o", 50_000), isError: false },
        { id: "b", name: "read", args: { path: "small" }, output: "small output", isError: false },
      ]),
    ];
    const out = boundedHistory(turns, cap);
    expect(bytes(out)).toBeLessThanOrEqual(cap);
    const turn = out[1] as Extract<HistoryTurn, { role: "assistant" }>;
    expect(out[0]).toEqual({ role: "user", text: "short question" });
    expect(turn.text).toBe("short answer");
    expect(turn.tools[1]).toEqual({ id: "b", name: "read", args: { path: "small" }, output: "small output", isError: false });
    for (const cut of [turn.reasoning, turn.tools[0]?.output ?? ""]) {
      expect(cut).toMatch(/^<.*\n\[… [\d,]+ characters left out here: one history answer carries at most 64 KB; the whole text stays on the device\]\n.*>$/s);
    }
    // Both were cut to the same length.
    expect(Math.abs(turn.reasoning.length - (turn.tools[0]?.output ?? "").length)).toBeLessThan(100);
    // What was said left out is what was left out.
    const left = Number(/\[… ([\d,]+) characters/.exec(turn.reasoning)?.[1]?.replaceAll(",", ""));
    expect(turn.reasoning.replace(/\n\[….*\]\n/, "").length + left).toBe(100_002);
  });

  test("texts beyond ASCII and full of escapes still fit", () => {
    const turns: HistoryTurn[] = [assistant("é😀".repeat(40_000), "\u0001\n\"".repeat(40_000))];
    const out = boundedHistory(turns, cap);
    expect(bytes(out)).toBeLessThanOrEqual(cap);
    expect((out[0] as { text: string }).text).toContain("characters left out here");
  });

  test("too many turns for even cut texts: the oldest are left out, and a first turn says how many", () => {
    const turns: HistoryTurn[] = Array.from({ length: 400 }, (_, i): HistoryTurn => (i % 2 === 0 ? { role: "user", text: `q${i} ${"x".repeat(3_000)}` } : assistant(`a${i} ${"y".repeat(3_000)}`)));
    const out = boundedHistory(turns, cap);
    expect(bytes(out)).toBeLessThanOrEqual(cap);
    const note = out[0] as { role: string; text: string };
    const dropped = Number(/the ([\d,]+) oldest turns of this session are left out/.exec(note.text)?.[1]?.replaceAll(",", ""));
    expect(dropped).toBeGreaterThan(0);
    expect(out.length - 1).toBe(400 - dropped);
    expect(out.at(-1)).toEqual(turns.at(-1));
  });
});
