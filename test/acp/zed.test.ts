import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { isStep, step } from "../support/engine.ts";
import { contentText } from "../support/model.ts";

let a: StdioAgent;
beforeEach(async () => {
  a = await startStdioAgent();
});
afterEach(() => a.close());

const newSession = async (extra: Record<string, unknown> = {}) => {
  await a.agent.request("initialize", initializeParams);
  return a.agent.request("session/new", { cwd: a.project, mcpServers: [], ...extra });
};

/** What the model was given as the person's prompt, in the last step request. */
const promptSeen = () => {
  const user = a.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages?.find((m) => m.role === "user");
  return contentText(user?.content);
};

const attachments = () => {
  const dir = join(a.box.stateDir, "attachments");
  return existsSync(dir) ? readdirSync(dir, { recursive: true }).filter((f) => String(f).includes(".")) : [];
};

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

describe("a file the editor attaches", () => {
  test("a file:// resource inside the project is attached as that file, by its path, not copied", async () => {
    mkdirSync(join(a.project, "src"));
    writeFileSync(join(a.project, "src", "a.ts"), lines(5));
    a.model.push(step({ text: "ok" }));
    const { sessionId } = await newSession();
    const uri = pathToFileURL(join(a.project, "src", "a.ts")).href;
    await a.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "explain" }, { type: "resource", resource: { uri, mimeType: "text/x-typescript", text: lines(5) } }],
    });
    const seen = promptSeen();
    expect(seen).toContain('<file path="src/a.ts">\n     1\tline 1\n');
    expect(seen).not.toContain("attachments");
    expect(attachments()).toEqual([]);
  });

  test("a selection (Zed's #L2:3, or #L2-3) is attached as those lines of the file", async () => {
    writeFileSync(join(a.project, "a.ts"), lines(5));
    a.model.push(step({ text: "ok" }), step({ text: "ok" }));
    const { sessionId } = await newSession();
    const base = pathToFileURL(join(a.project, "a.ts")).href;
    for (const fragment of ["#L2:3", "#L2-3"]) {
      await a.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "this part" }, { type: "resource", resource: { uri: `${base}${fragment}`, text: "line 2\nline 3\n" } }],
      });
      expect(promptSeen()).toContain('<file path="a.ts" lines="2-3">\n     2\tline 2\n     3\tline 3\n</file>');
    }
    expect(attachments()).toEqual([]);
  });

  test("a file outside the project, or a protected one, is still a copy in the attachment directory", async () => {
    writeFileSync(join(a.project, ".env"), "SECRET=1\n");
    const outside = join(a.box.dir, "elsewhere.md");
    writeFileSync(outside, "far away\n");
    a.model.push(step({ text: "ok" }));
    const { sessionId } = await newSession();
    await a.agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "these" },
        { type: "resource", resource: { uri: pathToFileURL(outside).href, text: "far away\n" } },
        { type: "resource", resource: { uri: pathToFileURL(join(a.project, ".env")).href, text: "SECRET=1\n" } },
      ],
    });
    const seen = promptSeen();
    expect(seen).toContain('<file name="elsewhere.md" path="');
    expect(seen).toContain('<file name=".env" path="');
    expect(attachments()).toHaveLength(2);
  });
});
