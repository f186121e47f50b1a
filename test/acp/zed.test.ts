import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { isStep, step } from "../support/engine.ts";
import { contentText, startModel } from "../support/model.ts";
import { sandbox } from "../support/run.ts";

let a: StdioAgent;
beforeEach(async () => {
  a = await startStdioAgent();
});
/** What a test started itself (a model, a device's sandbox): the agent leaves it at its close. */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  // Nothing but protocol messages on stdout, whatever the test did.
  for (const line of a.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
  await a.close();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

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

  test("a file with changes the editor has not saved: the model is given the editor's text, under the file's path, marked unsaved", async () => {
    mkdirSync(join(a.project, "src"));
    writeFileSync(join(a.project, "src", "a.ts"), lines(5));
    a.model.push(step({ text: "ok" }), step({ text: "ok" }));
    const { sessionId } = await newSession();
    const uri = pathToFileURL(join(a.project, "src", "a.ts")).href;
    const buffer = lines(5).replace("line 2\n", "line 2, as typed\n");
    await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "explain" }, { type: "resource", resource: { uri, mimeType: "text/x-typescript", text: buffer } }] });
    let seen = promptSeen();
    expect(seen).toContain('<file path="src/a.ts" unsaved="true">\n     1\tline 1\n     2\tline 2, as typed\n     3\tline 3\n     4\tline 4\n     5\tline 5\n</file>\n');
    expect(seen).toContain("(src/a.ts has changes in the editor that are not saved: this is the editor's text, and the file on disk differs; read the file before changing it)");
    expect(seen).not.toContain("\tline 2\n");
    expect(attachments()).toEqual([]);

    // A selection of unsaved lines: those lines as the editor has them, numbered where they stand.
    await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "this part" }, { type: "resource", resource: { uri: `${uri}#L2:3`, text: "line 2, as typed\nline 3\n" } }] });
    const users = a.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages?.filter((m) => m.role === "user") ?? [];
    seen = contentText(users.at(-1)?.content);
    expect(seen).toContain('<file path="src/a.ts" lines="2-3" unsaved="true">\n     2\tline 2, as typed\n     3\tline 3\n</file>');
  });

  test("the editor's text that is the disk's, line endings or a last newline aside, or part of the selected lines, is the file as saved", async () => {
    writeFileSync(join(a.project, "crlf.txt"), "one\r\ntwo\r\n");
    writeFileSync(join(a.project, "a.ts"), lines(5));
    a.model.push(step({ text: "ok" }));
    const { sessionId } = await newSession();
    await a.agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "these" },
        { type: "resource", resource: { uri: pathToFileURL(join(a.project, "crlf.txt")).href, text: "one\ntwo" } },
        { type: "resource", resource: { uri: `${pathToFileURL(join(a.project, "a.ts")).href}#L3:3`, text: "ne 3" } },
      ],
    });
    const seen = promptSeen();
    expect(seen).not.toContain("unsaved");
    expect(seen).toContain('<file path="crlf.txt">');
    expect(seen).toContain('<file path="a.ts" lines="3-3">\n     3\tline 3\n</file>');
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

describe("a project opened through a symlink", () => {
  test("its session is rooted where the project really is: a write inside it is no write outside the project", async () => {
    const link = join(a.box.dir, "project-link");
    symlinkSync(a.project, link);
    a.model.push(step({ toolCalls: [{ name: "write", arguments: { path: "made.txt", content: "made\n" } }] }), step({ text: "ok" }));
    const made = await newSession({ cwd: link, _meta: { mode: "edit" } });
    await a.agent.request("session/prompt", { sessionId: made.sessionId, prompt: [{ type: "text", text: "make it" }] });
    expect(a.permissionRequests).toEqual([]);
    expect(readFileSync(join(a.project, "made.txt"), "utf8")).toBe("made\n");
    // Listed under the name the editor knows it by, and under the real one.
    for (const cwd of [link, realpathSync(a.project)]) {
      const listed = await a.agent.request("session/list", { cwd });
      expect(listed.sessions.map((s) => [s.sessionId, s.cwd])).toEqual([[made.sessionId, realpathSync(a.project)]]);
    }
  });
});

type Raw = Record<string, unknown>;
const updatesFor = (callId: unknown) => a.updates.map((u) => u.update as Raw).filter((u) => u.toolCallId === callId);
const textOf = (update: Raw | undefined) => (update?.content as { content?: { text?: string } }[] | undefined)?.[0]?.content?.text;

describe("tool calls as they happen", () => {
  test("a running command's output streams into its tool call's content before it ends", async () => {
    // The command goes on once the test has seen its first line (the file it waits for).
    const command = "echo first; while [ ! -e seen ]; do sleep 0.05; done; echo second";
    a.model.push(step({ toolCalls: [{ name: "bash", arguments: { command } }] }), step({ text: "ok" }));
    const { sessionId } = await newSession({ _meta: { mode: "auto" } });
    const answer = a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run it" }] });
    const deadline = Date.now() + 20_000;
    while (!updatesFor("call_1").some((u) => textOf(u) === "first\n") && Date.now() < deadline) await Bun.sleep(10);
    writeFileSync(join(a.project, "seen"), "");
    await answer;
    const updates = updatesFor("call_1");
    const done = updates.findIndex((u) => u.status === "completed");
    const live = updates.slice(0, done).filter((u) => u.sessionUpdate === "tool_call_update" && u.content);
    expect(live.length).toBeGreaterThan(0);
    expect(textOf(live[0])).toBe("first\n");
    expect(textOf(updates[done])).toContain("first\nsecond");
  });

  test("a flood of output is a few updates, not one a line", async () => {
    const command = "seq 1 20000; sleep 0.5; echo end";
    a.model.push(step({ toolCalls: [{ name: "bash", arguments: { command } }] }), step({ text: "ok" }));
    const { sessionId } = await newSession({ _meta: { mode: "auto" } });
    await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run it" }] });
    const live = updatesFor("call_1").filter((u) => u.sessionUpdate === "tool_call_update" && u.content && !u.status);
    expect(live.length).toBeGreaterThan(0);
    expect(live.length).toBeLessThan(10);
    // Each carries the output so far (ACP content replaces what was shown).
    expect(textOf(live.at(-1))).toContain("19999\n20000\n");
  });

  test("a tool call is announced before its approval is asked", async () => {
    a.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }), step({ text: "ok" }));
    const { sessionId } = await newSession({ _meta: { mode: "edit" } });
    await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "make it" }] });
    const lines = a.stdoutLines;
    const asked = lines.findIndex((l) => l.includes('"session/request_permission"'));
    const announced = lines.findIndex((l) => l.includes('"sessionUpdate":"tool_call"') && l.includes('"call_1"'));
    expect(asked).toBeGreaterThan(-1);
    expect(announced).toBeGreaterThan(-1);
    expect(announced).toBeLessThan(asked);
    // By the time it is asked, the client shows what it would run.
    const before = updatesFor("call_1").filter((u) => u.title === "Run touch made.txt");
    expect(before[0]).toMatchObject({ kind: "execute", rawInput: { command: "touch made.txt" } });
  });

  test("a tool call is announced as soon as the model starts it, not when its arguments are whole", async () => {
    const content = "x".repeat(2000);
    // The call's name comes, its arguments not until the test has seen it: a call shown only once
    // they are whole would time the test out. Seen, the turn is cancelled with them still unfinished.
    let release = () => {};
    const hold = new Promise<void>((resolve) => (release = resolve));
    a.model.push(step({ toolCalls: [{ name: "write", arguments: { path: "long.md", content }, chunks: 20 }], hold }));
    try {
      const { sessionId } = await newSession({ _meta: { mode: "auto" } });
      const answer = a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write it" }] });
      while (!updatesFor("call_1").some((u) => u.sessionUpdate === "tool_call")) await Bun.sleep(10);
      expect(updatesFor("call_1")[0]).toMatchObject({ sessionUpdate: "tool_call", title: "write", kind: "edit", status: "pending" });
      await a.agent.notify("session/cancel", { sessionId });
      expect(await answer).toMatchObject({ stopReason: "cancelled" });
    } finally {
      release();
    }
  }, 30_000);

  test("a call announced that never runs (arguments not JSON) is failed, not left pending", async () => {
    a.model.push(step({ toolCalls: [{ name: "write", arguments: '{"path": "a.md", "content": ' }] }), step({ text: "ok" }));
    const { sessionId } = await newSession({ _meta: { mode: "auto" } });
    await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write it" }] });
    expect(updatesFor("call_1").map((u) => [u.sessionUpdate, u.status])).toEqual([
      ["tool_call", "pending"],
      ["tool_call_update", "failed"],
    ]);
  });
});

describe("the model and effort chosen from the editor", () => {
  const option = (options: unknown, id: string) => (options as { id: string; currentValue: string; category: string; options: { value: string }[] }[]).find((o) => o.id === id);

  test("session/new offers the model, effort and mode as config options; set_config_option changes what the next turn uses", async () => {
    await a.close();
    const server = await startModel({ models: [{ id: "test-model" }, { id: "other-model" }] });
    cleanups.push(() => server.close());
    a = await startStdioAgent({ model: server });
    a.model.push(step({ text: "ok" }));
    const created = await newSession();
    const model = option(created.configOptions, "model");
    expect(model).toMatchObject({ category: "model", type: "select", currentValue: "test/test-model" });
    expect(model?.options.map((o) => o.value)).toEqual(["test/test-model", "test/other-model"]);
    expect(option(created.configOptions, "effort")).toMatchObject({ category: "thought_level", currentValue: "medium" });
    expect(option(created.configOptions, "mode")).toMatchObject({ category: "mode", currentValue: "edit" });

    const changed = await a.agent.request("session/set_config_option", { sessionId: created.sessionId, configId: "model", value: "test/other-model" });
    expect(option(changed.configOptions, "model")?.currentValue).toBe("test/other-model");
    const effort = await a.agent.request("session/set_config_option", { sessionId: created.sessionId, configId: "effort", value: "high" });
    expect(option(effort.configOptions, "effort")?.currentValue).toBe("high");
    await a.agent.request("session/prompt", { sessionId: created.sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(a.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.model).toBe("other-model");
    // The client is told of each change, as it would be of one made elsewhere (a /model command).
    const told = a.updates.map((u) => u.update as Raw).filter((u) => u.sessionUpdate === "config_option_update");
    expect(option(told.at(-1)?.configOptions, "effort")?.currentValue).toBe("high");
  });

  test("a model that is not there, or an option that is not, is a JSON-RPC error with a sentence", async () => {
    const { sessionId } = await newSession();
    const unknown = await a.agent.request("session/set_config_option", { sessionId, configId: "model", value: "nope/none" }).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: -32602 });
    const noOption = await a.agent.request("session/set_config_option", { sessionId, configId: "colour", value: "blue" }).catch((e: unknown) => e);
    expect(noOption).toMatchObject({ code: -32602, message: expect.stringContaining('there is no config option "colour"') });
    const badEffort = await a.agent.request("session/set_config_option", { sessionId, configId: "effort", value: "max" }).catch((e: unknown) => e);
    expect(badEffort).toMatchObject({ code: -32602, message: expect.stringContaining("off, low, medium, high") });
  });
});

describe("past threads", () => {
  test("after a restart, session/list names the sessions kept and session/resume goes on with one", async () => {
    // A device whose store outlives its agents: the second agent runs where the first did.
    await a.close();
    const server = await startModel();
    const box = sandbox();
    const project = join(box.dir, "project");
    mkdirSync(project, { recursive: true });
    mkdirSync(box.configDir, { recursive: true });
    writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${server.url}\n`);
    cleanups.push(() => server.close(), () => box.cleanup());
    a = await startStdioAgent({ device: { box, project }, model: server });
    a.model.push(step({ text: "first answer" }));
    const { sessionId } = await newSession();
    await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "remember the word pumpkin" }] });
    await a.close();
    a = await startStdioAgent({ device: { box, project }, model: server });
    await a.agent.request("initialize", initializeParams);
    const listed = await a.agent.request("session/list", { cwd: a.project });
    expect(listed.sessions.map((s) => s.sessionId)).toEqual([sessionId]);
    expect(listed.sessions[0]).toMatchObject({ cwd: a.project, updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect((await a.agent.request("session/list", { cwd: "/nowhere" })).sessions).toEqual([]);

    const resumed = await a.agent.request("session/resume", { sessionId, cwd: a.project, mcpServers: [] });
    expect(resumed.modes?.currentModeId).toBe("edit");
    a.model.push(step({ text: "pumpkin" }));
    await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "which word?" }] });
    const history = JSON.stringify(a.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages);
    expect(history).toContain("remember the word pumpkin");
    expect(history).toContain("first answer");
  });

  test("resuming a session that is not there is a JSON-RPC error with a sentence", async () => {
    await a.agent.request("initialize", initializeParams);
    const error = await a.agent.request("session/resume", { sessionId: "ses_none", cwd: a.project, mcpServers: [] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -32602, message: expect.stringContaining("there is no session ses_none") });
  });
});
