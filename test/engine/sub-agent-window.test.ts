import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type EngineHarness, engineHarness, helperStep, isHelper, isSummary, ofType, ownStep } from "../support/engine.ts";
import { type ChatRequest, contentText } from "../support/model.ts";

let h: EngineHarness;
afterEach(() => h.close());

const WINDOW = 20_000;
/** As the engine estimates a request, and as a server counts one, roughly. */
const tokensOf = (body: ChatRequest) => (JSON.stringify(body.messages ?? []).length + JSON.stringify(body.tools ?? []).length) / 3.5;
const OVERFLOW = JSON.stringify({
  error: { message: `This model's maximum context length is ${WINDOW} tokens. Please reduce the length of the messages.`, type: "invalid_request_error", code: "context_length_exceeded" },
});

test("a helper over a small window reading four large files compacts its own history as a session does, and answers", async () => {
  h = await engineHarness({ models: [{ id: "test-model", context_length: WINDOW }] });
  const files = ["a", "b", "c", "d"].map((name) => {
    writeFileSync(join(h.project, `${name}.txt`), Array.from({ length: 300 }, (_, i) => `${name.toUpperCase()}-${i} ${"x".repeat(90)}`).join("\n"));
    return `${name}.txt`;
  });
  h.model.push(
    // As a real server does: a request longer than the window is refused, whoever sends it.
    { match: (b) => tokensOf(b) > WINDOW, text: "", fail: { status: 400, body: OVERFLOW }, failTimes: 100 },
    ownStep({ toolCalls: [{ id: "call_task", name: "task", arguments: { description: "read the four files", prompt: "Read a.txt, b.txt, c.txt and d.txt; say how their lines start." } }] }),
    ...files.map((path, i) => helperStep({ toolCalls: [{ id: `h${i}`, name: "read", arguments: { path } }] })),
    helperStep({ text: "Their lines start with A-, B-, C- and D-, numbered from 0." }),
    ownStep({ text: "Done." }),
  );
  for (let i = 1; i <= 8; i++) h.model.push({ match: (b) => isSummary(b) && tokensOf(b) <= WINDOW, text: `SUMMARY ${i}: the helper read some of the four files.` });
  const session = await h.session();
  const answer = await session.prompt({ text: "what do the files hold?" });
  expect(answer.error).toBeUndefined();
  expect(answer.stopReason).toBe("end_turn");

  const result = ofType(h.events(session), "tool_end").find((e) => e.callId === "call_task");
  expect(result).toMatchObject({ isError: false, output: "Their lines start with A-, B-, C- and D-, numbered from 0." });
  const helper = h.model.requests.filter((r) => isHelper(r.body));
  expect(helper).toHaveLength(5);
  for (const r of helper) expect(tokensOf(r.body)).toBeLessThan(WINDOW);
  // The helper's history was summarised, by its own requests, and its last step read on from a summary.
  expect(h.model.requests.some((r) => isSummary(r.body))).toBe(true);
  const last = helper.at(-1)?.body.messages ?? [];
  expect(last.map((m) => contentText(m.content)).join("\n").includes("SUMMARY")).toBe(true);
  // The latest read is sent as it came.
  expect(contentText(last.at(-1)?.content).includes("D-100 ")).toBe(true);
});
