/**
 * The replay shows the person's message as their editor showed it live (issue 31): a mention sent
 * as a resource_link comes back as that link, an image as the image, an unsaved buffer sent as an
 * embedded resource as that resource; a resource's text past the bound comes back as a link to
 * its file, so that a session's records and its replay stay bounded.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { step } from "../support/engine.ts";
import { startModel } from "../support/model.ts";
import { sandbox } from "../support/run.ts";

const agents: StdioAgent[] = [];
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

test("session/load replays a mention as its resource_link, an image as the image and an unsaved buffer as the resource sent", async () => {
  const model = await startModel();
  const box = sandbox();
  const project = join(box.dir, "project");
  mkdirSync(project, { recursive: true });
  mkdirSync(box.configDir, { recursive: true });
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n`);
  cleanups.push(() => model.close(), () => box.cleanup());
  writeFileSync(join(project, "file.md"), "# File\n");
  writeFileSync(join(project, "n.md"), "as saved\n");
  writeFileSync(join(project, "big.md"), "small on disk\n");
  const uri = (name: string) => pathToFileURL(join(project, name)).href;
  const big = "a line of the unsaved buffer\n".repeat(6000);

  const live = await startStdioAgent({ device: { box, project }, model });
  agents.push(live);
  await live.agent.request("initialize", initializeParams);
  const { sessionId } = await live.agent.request("session/new", { cwd: project, mcpServers: [], _meta: { mode: "auto" } });
  const prompts = [
    [{ type: "text", text: "Summarize " }, { type: "resource_link", uri: uri("file.md"), name: "file.md", mimeType: "text/markdown" }, { type: "text", text: " in one line" }],
    [{ type: "text", text: "What is in this picture?" }, { type: "image", mimeType: "image/png", data: PNG }],
    [{ type: "text", text: "Fix " }, { type: "resource", resource: { uri: uri("n.md"), mimeType: "text/markdown", text: "unsaved text\n" } }],
    [{ type: "resource", resource: { uri: uri("big.md"), text: big } }, { type: "text", text: "and this" }],
  ] as const;
  for (const prompt of prompts) {
    model.push(step({ text: "ok" }));
    const answer = await live.agent.request<{ stopReason: string }>("session/prompt", { sessionId, prompt: [...prompt] });
    expect(answer.stopReason).toBe("end_turn");
  }
  agents.splice(0);
  await live.close();

  const b = await startStdioAgent({ device: { box, project }, model });
  agents.push(b);
  await b.agent.request("initialize", initializeParams);
  await b.agent.request("session/load", { sessionId, cwd: project, mcpServers: [] });
  const person = b.updates.filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === "user_message_chunk").map((u) => (u.update as { content: unknown }).content);
  expect(person).toEqual([
    ...prompts[0],
    ...prompts[1],
    ...prompts[2],
    // Past the bound: a link to the file the unsaved buffer is of, not its 170 KB again.
    { type: "resource_link", uri: uri("big.md"), name: "big.md", size: big.length },
    prompts[3][1],
  ]);
});
