/**
 * A slow editor costs once (issue 31): an @mention's read while a prompt is prepared ends when the
 * turn is cancelled; an editor that let an fs request go unanswered past the time limit is not
 * waited on again on its connection (the next read is the disk's at once, and says so) until it
 * answers something.
 */
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { editorFsParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { isStep, step } from "../support/engine.ts";
import { contentText } from "../support/model.ts";

let a: StdioAgent | null = null;
afterEach(async () => {
  await a?.close();
  a = null;
});

async function session(agent: StdioAgent): Promise<string> {
  await agent.agent.request("initialize", editorFsParams);
  return ((await agent.agent.request("session/new", { cwd: agent.project, mcpServers: [], _meta: { mode: "auto" } })) as { sessionId: string }).sessionId;
}

const prompt = (agent: StdioAgent, sessionId: string, text: string) => agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });

/** What the model was told of each tool call in the last step it was asked. */
const toolResults = (agent: StdioAgent): string[] =>
  agent.model.requests
    .filter((r) => isStep(r.body))
    .at(-1)
    ?.body.messages?.filter((m) => m.role === "tool")
    .map((m) => contentText(m.content)) ?? [];

test("cancelling a prompt while an @mention's buffer is read ends the read, and the turn answers cancelled without running", async () => {
  let aborted: () => void = () => {};
  const abortedSeen = new Promise<void>((resolve) => (aborted = resolve));
  // No time limit to speak of: only the cancel can end the wait.
  a = await startStdioAgent({
    fs: {
      read: (_, signal) =>
        new Promise((_, reject) =>
          signal.addEventListener("abort", () => {
            aborted();
            reject(new Error("cancelled"));
          }),
        ),
    },
    env: { LEMBAS_TEST_EDITOR_FILES_MS: "600000" },
  });
  writeFileSync(join(a.project, "a.md"), "notes\n");
  const sessionId = await session(a);
  const running = prompt(a, sessionId, "summarize @a.md");
  while (a.fsRequests.length === 0) await Bun.sleep(10);
  await a.agent.notify("session/cancel", { sessionId });
  await abortedSeen;
  expect((await running).stopReason).toBe("cancelled");
  expect(a.model.requests.filter((r) => isStep(r.body))).toHaveLength(0);
});

test("an editor that did not answer a read in time is not asked again (the disk at once, said) until it answers; then it is", async () => {
  let answerLate: () => void = () => {};
  const late = new Promise<void>((resolve) => (answerLate = resolve));
  let reads = 0;
  a = await startStdioAgent({
    fs: {
      // The first read is answered only when the test says so, whatever the cancel; the others at once.
      read: async ({ path }) => {
        reads++;
        if (reads === 1) await late;
        return { content: `buffer of ${path.split("/").at(-1)}\n` };
      },
    },
    env: { LEMBAS_TEST_EDITOR_FILES_MS: "500" },
  });
  for (const name of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(a.project, name), `disk of ${name}\n`);
  const sessionId = await session(a);
  a.model.push(
    step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }),
    step({ toolCalls: [{ name: "read", arguments: { path: "b.txt" } }] }),
    step({ text: "ok" }),
  );
  expect((await prompt(a, sessionId, "read both")).stopReason).toBe("end_turn");
  const [first, second] = toolResults(a);
  expect(first).toContain("disk of a.txt");
  expect(first).toContain("did not answer within 0.5 s, so this is the file as saved on disk");
  expect(second).toContain("disk of b.txt");
  expect(second).toContain("is not asked again until it answers, so this is the file as saved on disk");
  expect(a.fsRequests.map((r) => r.params.path)).toEqual([join(a.project, "a.txt")]);

  // It answers at last: it is asked again, and its buffer is what the model sees.
  answerLate();
  // The client's answer is queued on its writer before the next prompt is (a turn of the loop lets
  // its handler return), so lembas reads it first: the order of the pipe, not a clock.
  await late;
  await Bun.sleep(0);
  a.model.push(step({ toolCalls: [{ name: "read", arguments: { path: "c.txt" } }] }), step({ text: "ok" }));
  expect((await prompt(a, sessionId, "read c")).stopReason).toBe("end_turn");
  expect(a.fsRequests.map((r) => r.params.path)).toEqual([join(a.project, "a.txt"), join(a.project, "c.txt")]);
  expect(toolResults(a).at(-1)).toContain("buffer of c.txt");
});
