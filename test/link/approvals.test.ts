import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Device, lembasEvents, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";

let d: Device;
afterEach(() => d.close());

/** A device whose remote roots hold its project, serving the simulated instance. */
async function device(): Promise<Device> {
  const made = await startDevice();
  writeFileSync(
    join(made.box.configDir, "config.yaml"),
    `model: test/test-model\nconnections:\n  test:\n    base_url: ${made.model.url}\nremote:\n  roots: [${made.work}]\n  max_mode: auto\nembedding: null\n`,
  );
  return made;
}

describe("the web UI's approval card", () => {
  test("shows the command and where it runs, and the running call's title is the command too", async () => {
    d = await device();
    const link = await d.serve();
    const cards: { toolCall: { title: string; content?: unknown } }[] = [];
    link.onRequest("session/request_permission", (params) => {
      cards.push(params as (typeof cards)[number]);
      return { outcome: { outcome: "selected", optionId: "once" } };
    });
    const command = "echo secret > out.txt && cat out.txt";
    d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command, description: "write out.txt" } }] }), step({ text: "ok" }));
    const { sessionId } = (await link.request("session/new", { cwd: d.project, mcpServers: [], _meta: { mode: "edit" } })) as { sessionId: string };
    await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] }, 60_000);
    expect(cards[0]?.toolCall.title).toBe(`Run ${command}`);
    expect(cards[0]?.toolCall.content).toEqual([
      { type: "content", content: { type: "text", text: `\`\`\`sh\n${command}\n\`\`\`\nin ${d.project}\nThe model describes it as: write out.txt` } },
    ]);
    expect(lembasEvents(link, sessionId).find((e) => e.type === "tool_start")).toMatchObject({ title: `Run ${command}` });
  });
});
