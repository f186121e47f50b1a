import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Device, lembasEvents, newSession, sharedServiceEach, startDevice } from "../support/device.ts";
import { isStep, step } from "../support/engine.ts";
import type { Link } from "../support/instance.ts";
import { contentText, personText, type ScriptedModel } from "../support/model.ts";
import { rpcError } from "../support/rpc.ts";

/** The test's device (the file's shared one, or one of its own), model, project, link and session. */
let d: Device;
let model: ScriptedModel;
let project: string;
let link: Link;
let sessionId: string;
/** A device a test started for itself: closed after it. */
let own: Device | null = null;

sharedServiceEach((t) => ({ d, link, model, project } = t));
beforeEach(async () => {
  sessionId = await newSession(link, project);
});
afterEach(async () => {
  await own?.close();
  own = null;
});

const send = (prompt: unknown[], extra: Record<string, unknown> = {}) => link.request("session/prompt", { sessionId, prompt, ...extra }, 30_000);
const say = (text: string) => send([{ type: "text", text }]);
/** The user message of the last turn's model request, as text (parts joined). */
const lastUser = () => {
  const messages = model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
  return personText(messages.findLast((m) => m.role === "user")?.content);
};
const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

describe("blocks", () => {
  test("an image is written under the session's attachment dir, named its own way, and shown to the model by a line", async () => {
    model.push(step({ text: "nice" }), step({ text: "again" }));
    const image = { type: "image", data: png.toString("base64"), mimeType: "image/png", uri: "file:///home/me/shot.png" };
    await send([{ type: "text", text: "what is this?" }, image]);
    await send([{ type: "text", text: "and this?" }, image]);
    const dir = join(d.box.stateDir, "attachments", sessionId);
    const files = readdirSync(dir);
    expect(files).toHaveLength(2);
    for (const f of files) expect(f).toMatch(/^\d+-[0-9a-f]{8}-shot\.png$/);
    expect(lastUser()).toContain("(image attached: shot.png");
    const prompt = lembasEvents(link, sessionId).find((e) => e.type === "prompt");
    expect(prompt).toMatchObject({ text: "what is this?", attachments: [{ name: "shot.png", mimeType: "image/png", size: png.length }] });
    const history = (await link.request("_lembas/session/history", { sessionId })) as { turns: { role: string; attachments?: unknown[] }[] };
    expect(history.turns[0]?.attachments).toEqual([{ name: "shot.png", mimeType: "image/png", size: png.length }]);
    expect(await link.request("_lembas/session/delete", { sessionId })).toEqual({ deleted: true });
    expect(existsSync(dir)).toBe(false);
  });

  test("a vision model gets the image itself", async () => {
    // A device of its own: its service is restarted with another config.
    d = own = await startDevice();
    model = d.model;
    project = d.project;
    link = await d.serve();
    const { writeFileSync: write } = await import("node:fs");
    write(join(d.box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n    vision: true\nremote:\n  roots: [${d.work}]\n`);
    await d.kill("SIGTERM");
    link = await d.serve();
    sessionId = await newSession(link, project);
    model.push(step({ text: "a pixel" }));
    await send([{ type: "text", text: "look" }, { type: "image", data: png.toString("base64"), mimeType: "image/png" }]);
    const user = model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages?.findLast((m) => m.role === "user");
    expect(JSON.stringify(user?.content)).toContain(`data:image/png;base64,${png.toString("base64")}`);
  });

  test("a text resource is attached line-numbered; a binary one by path", async () => {
    model.push(step({ text: "ok" }));
    await send([
      { type: "text", text: "see" },
      { type: "resource", resource: { uri: "file:///x/notes.md", mimeType: "text/markdown", text: "one\ntwo\n" } },
      { type: "resource", resource: { uri: "file:///x/data.bin", mimeType: "application/octet-stream", blob: Buffer.from([0, 1, 2]).toString("base64") } },
    ]);
    expect(lastUser()).toContain("1\tone\n2\ttwo");
    expect(lastUser()).toMatch(/\(binary file, 3 bytes: data\.bin, at .*data\.bin\)/);
  });

  test("an embedded text resource counts as read: the model may edit the attached file at once", async () => {
    model.push(step({ text: "seen" }));
    await send([{ type: "text", text: "see" }, { type: "resource", resource: { uri: "file:///x/notes.md", text: "one\ntwo\n" } }]);
    const dir = join(d.box.stateDir, "attachments", sessionId);
    const [name] = readdirSync(dir);
    const path = join(dir, name ?? "");
    expect(lastUser()).toContain(`path="${path}"`);
    // The attachment lies outside the project: the write is asked, and allowed once.
    link.onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "once" } }));
    model.push(step({ toolCalls: [{ name: "edit", arguments: { path, old_string: "two", new_string: "TWO" } }] }), step({ text: "ok" }));
    await say("fix it");
    const messages = model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
    expect(contentText(messages.findLast((m) => m.role === "tool")?.content)).toStartWith("Edited");
  });

  test("a block of exactly 10 MiB is accepted; one byte more is refused with a sentence", async () => {
    const MiB = 1024 * 1024;
    const image = (bytes: number) => ({ type: "image", data: Buffer.concat([png, Buffer.alloc(bytes - png.length)]).toString("base64"), mimeType: "image/png" });
    model.push(step({ text: "big" }));
    expect(await send([{ type: "text", text: "x" }, image(10 * MiB)])).toMatchObject({ stopReason: "end_turn" });
    const over = await rpcError(send([{ type: "text", text: "x" }, image(10 * MiB + 1)]));
    expect(over).toMatchObject({ code: -32602, message: expect.stringContaining("block 2 (image) is 10485761 bytes decoded; the limit is 10 MiB (10485760 bytes) a block") });
  }, 30_000);

  test("a text block over 10 MiB, and a prompt of text over 25 MiB, are refused: the limits are of every kind of block", async () => {
    const MiB = 1024 * 1024;
    const text = await rpcError(send([{ type: "text", text: "y".repeat(10 * MiB + 1) }]));
    expect(text).toMatchObject({ code: -32602, message: expect.stringContaining("block 1 (text) is 10485761 bytes decoded") });
    const nine = "z".repeat(9 * MiB);
    const total = await rpcError(send([{ type: "text", text: nine }, { type: "text", text: nine }, { type: "resource", resource: { uri: "file:///x/n.md", text: nine } }]));
    expect(total).toMatchObject({ code: -32602, message: expect.stringContaining("the limit is 25 MiB (26214400 bytes) a prompt") });
    expect(model.requests.filter((r) => isStep(r.body))).toHaveLength(0);
    expect(existsSync(join(d.box.stateDir, "attachments", sessionId))).toBe(false);
  }, 30_000);

  test("limits and bad data: 11 MB, five blocks of 6 MB, invalid base64, an unknown image type — each -32602, nothing written", async () => {
    const big = (mb: number) => Buffer.alloc(mb * 1024 * 1024, 7).toString("base64");
    const blob = (data: string, name: string) => ({ type: "resource", resource: { uri: `file:///x/${name}`, mimeType: "application/octet-stream", blob: data } });
    const eleven = await rpcError(send([{ type: "text", text: "x" }, blob(big(11), "big.bin")]));
    expect(eleven).toMatchObject({ code: -32602, message: expect.stringContaining("10 MiB (10485760 bytes) a block") });
    const six = big(6);
    const five = await rpcError(send([{ type: "text", text: "x" }, ...[1, 2, 3, 4, 5].map((i) => blob(six, `p${i}.bin`))]));
    expect(five.message).toContain("25 MiB (26214400 bytes) a prompt");
    const bad = await rpcError(send([{ type: "image", data: "not*base64!", mimeType: "image/png" }]));
    expect(bad.message).toContain("not valid base64");
    const tiff = await rpcError(send([{ type: "image", data: png.toString("base64"), mimeType: "image/tiff" }]));
    expect(tiff.message).toContain("image/png, image/jpeg, image/webp, image/gif");
    expect(existsSync(join(d.box.stateDir, "attachments", sessionId))).toBe(false);
    expect(model.requests.filter((r) => isStep(r.body))).toHaveLength(0);
  }, 30_000);
});

describe("@mentions", () => {
  beforeEach(() => {
    writeFileSync(join(project, "a.txt"), "alpha\nbeta\ngamma\ndelta\n");
    writeFileSync(join(project, "my notes.md"), "spaced\n");
    writeFileSync(join(project, "a#b.md"), "hashed\n");
    mkdirSync(join(project, "src"));
    writeFileSync(join(project, "src", "main.ts"), "export {};\n");
    writeFileSync(join(project, ".env"), "SECRET=1\n");
    writeFileSync(join(d.box.dir, "outside.txt"), "OUTSIDE\n");
    // What @../../etc/passwd names from the project (work/project-N): a file that is there.
    mkdirSync(join(d.box.dir, "etc"), { recursive: true });
    writeFileSync(join(d.box.dir, "etc", "passwd"), "root:x:0:0\n");
    symlinkSync(join(d.box.dir, "outside.txt"), join(project, "link-to-outside"));
  });

  test("files line-numbered, ranges, escaped names, directory listings", async () => {
    model.push(step({ text: "ok" }));
    await say("read @a.txt#2-3 and @my\\ notes.md and @a\\#b.md and @src/");
    const text = lastUser();
    expect(text).toStartWith("read @a.txt#2-3 and @my\\ notes.md and @a\\#b.md and @src/");
    expect(text).toContain('<file path="a.txt" lines="2-3">\n     2\tbeta\n     3\tgamma\n</file>');
    expect(text).toContain('<file path="my notes.md">\n     1\tspaced');
    expect(text).toContain('<file path="a#b.md">\n     1\thashed');
    expect(text).toContain('<directory path="src/">\nmain.ts\n</directory>');
    const prompt = lembasEvents(link, sessionId).find((e) => e.type === "prompt");
    expect(prompt?.text).toBe("read @a.txt#2-3 and @my\\ notes.md and @a\\#b.md and @src/");
  });

  test("@../../etc/passwd, @link-to-outside, @.env and @missing.txt stay plain text and are never read", async () => {
    model.push(step({ text: "ok" }));
    const typed = "see @../../etc/passwd @link-to-outside @.env @missing.txt";
    await say(typed);
    const text = lastUser();
    expect(text).toBe(typed);
    expect(text).not.toContain("root:");
    expect(text).not.toContain("OUTSIDE");
    expect(text).not.toContain("SECRET");
  });

  test("a mentioned file counts as read: the model may edit it at once", async () => {
    model.push(step({ toolCalls: [{ name: "edit", arguments: { path: "a.txt", old_string: "beta", new_string: "BETA" } }] }), step({ text: "ok" }));
    await say("fix @a.txt");
    const messages = model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
    expect(contentText(messages.findLast((m) => m.role === "tool")?.content)).not.toContain("read it first");
  });
});

describe("commands", () => {
  const commandFile = (name: string, text: string) => {
    mkdirSync(join(project, ".agent", "commands"), { recursive: true });
    writeFileSync(join(project, ".agent", "commands", `${name}.md`), text);
  };

  test("available_commands_update lists built-ins, then custom commands, then skills; never TUI names", async () => {
    commandFile("fix", "---\ndescription: Fix an issue\nargument-hint: <issue>\n---\nFix issue $ARGUMENTS carefully.");
    commandFile("settings", "---\ndescription: shadows a TUI command\n---\nnope");
    mkdirSync(join(project, ".agent", "skills", "deploy"), { recursive: true });
    writeFileSync(join(project, ".agent", "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Ship it\n---\nRun the deploy script.");
    const result = (await link.request("_lembas/commands", { cwd: project })) as { commands: { name: string; _meta: { lembas: { kind: string } } }[] };
    expect(result.commands.map((c) => `${c._meta.lembas.kind}:${c.name}`)).toEqual([
      "builtin:compact", "builtin:plan", "builtin:undo", "builtin:review", "builtin:changelog", "builtin:init", "builtin:continue",
      "custom:fix", "skill:deploy",
    ]);
    expect(result.commands.find((c) => c.name === "fix")).toMatchObject({ description: "Fix an issue", input: { hint: "<issue>" } });
    model.push(step({ text: "deployed" }));
    expect(await say("/deploy to staging")).toMatchObject({ _meta: { lembas: { command: "deploy" } } });
    expect(lastUser()).toContain('Use the skill "deploy"');
    expect(lastUser()).toContain("Run the deploy script.");
    expect(lastUser()).toContain("The task: to staging");
  });

  test("a custom command expands $ARGUMENTS, is shown as typed, and its model holds for its prompt only", async () => {
    commandFile("fix", "---\ndescription: Fix\nmodel: test/other-model\n---\nFix issue $ARGUMENTS carefully.");
    model.push(step({ text: "fixed" }), step({ text: "next" }));
    const result = await say("/fix #42");
    expect(result).toMatchObject({ _meta: { lembas: { command: "fix" } } });
    const steps = model.requests.filter((r) => isStep(r.body));
    expect(personText(steps[0]?.body.messages?.at(-1)?.content)).toBe("Fix issue #42 carefully.");
    expect(steps[0]?.body.model).toBe("other-model");
    expect(lembasEvents(link, sessionId).find((e) => e.type === "prompt")?.text).toBe("/fix #42");
    // The model event says the command's model when it takes over and the session's when it is back.
    const models = lembasEvents(link, sessionId).filter((e) => e.type === "model");
    expect(models).toEqual([
      expect.objectContaining({ ref: "test/other-model", connection: "test" }),
      expect.objectContaining({ ref: "test/test-model", connection: "test" }),
    ]);
    await say("and then?");
    expect(model.requests.filter((r) => isStep(r.body))[1]?.body.model).toBe("test-model");
  });

  test("a /name not in the set goes to the model as plain text", async () => {
    model.push(step({ text: "ok" }));
    await say("/usr/bin/env is a path");
    expect(lastUser()).toBe("/usr/bin/env is a path");
  });

  test("a command file with broken frontmatter is skipped, with a notice", async () => {
    commandFile("broken", "---\ndescription: [unclosed\n---\nbody");
    const fresh = (await link.request("session/new", { cwd: project, mcpServers: [] })) as { sessionId: string };
    const notice = await link.waitForNotification(
      (n) => n.method === "_lembas/event" && (n.params as { sessionId: string; event: { type: string } }).sessionId === fresh.sessionId && (n.params as { event: { type: string } }).event.type === "notice",
    );
    expect(JSON.stringify(notice.params)).toContain("broken.md is skipped");
    const result = (await link.request("_lembas/commands", { sessionId: fresh.sessionId })) as { commands: { name: string }[] };
    expect(result.commands.map((c) => c.name)).not.toContain("broken");
  });

  test("after a turn that writes a command file, the set is sent again", async () => {
    model.push(step({ toolCalls: [{ name: "write", arguments: { path: ".agent/commands/hello.md", content: "Say hello." } }] }), step({ text: "made it" }));
    const from = link.notifications.length;
    await say("make a /hello command");
    const update = await link.waitForNotification((n) => JSON.stringify(n.params).includes("available_commands_update") && JSON.stringify(n.params).includes('"hello"'), 5000, from);
    expect(update).toBeDefined();
  });

  test("/review with no changes answers a message and sends nothing; with changes the diff goes to the model", async () => {
    const git = (...args: string[]) => Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: project });
    git("init", "-q");
    writeFileSync(join(project, "code.ts"), "export const a = 1;\n");
    git("add", ".");
    git("commit", "-qm", "first");
    const none = await say("/review");
    expect(none).toEqual({ stopReason: "end_turn", _meta: { lembas: { turnId: expect.any(String), command: "review", message: "There are no changes to review." } } });
    expect(model.requests.filter((r) => isStep(r.body))).toHaveLength(0);
    writeFileSync(join(project, "code.ts"), "export const a = 2;\n");
    model.push(step({ text: "looks fine" }));
    await say("/review head");
    expect(lastUser()).toContain("-export const a = 1;\n+export const a = 2;");
  });

  test("/plan without a task switches to plan mode; /undo answers undone", async () => {
    expect(await say("/plan")).toEqual({ stopReason: "end_turn", _meta: { lembas: { turnId: expect.any(String), command: "plan", mode: "plan" } } });
    expect(await say("/undo")).toEqual({ stopReason: "end_turn", _meta: { lembas: { turnId: expect.any(String), command: "undo", undone: null } } });
  });

  test("/undo is a turn of its own: re-sent with its turn id it does not undo a second turn", async () => {
    model.push(
      step({ toolCalls: [{ name: "write", arguments: { path: "one.txt", content: "1" } }] }),
      step({ text: "ok" }),
      step({ toolCalls: [{ name: "write", arguments: { path: "two.txt", content: "2" } }] }),
      step({ text: "ok" }),
    );
    await say("first");
    await say("second");
    const undo = { sessionId, prompt: [{ type: "text", text: "/undo" }], _meta: { lembas: { turnId: "undo-1" } } };
    const first = (await link.request("session/prompt", undo)) as { _meta: { lembas: { undone: { files: string[] } } } };
    expect(first._meta.lembas.undone.files).toEqual(["two.txt"]);
    expect(await link.request("session/prompt", undo)).toEqual(first);
    expect(existsSync(join(project, "one.txt"))).toBe(true);
  });

  test("/compact sent while a turn works waits its turn instead of failing", async () => {
    model.push(step({ text: ["slow ", "answer"], chunkDelayMs: 200 }), { match: (b) => !isStep(b) && JSON.stringify(b.messages?.[0]).includes("summarise"), text: "SUMMARY" });
    const turn = say("talk");
    await link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { sessionId: string }).sessionId === sessionId && (n.params as { event: { type: string } }).event.type === "text");
    const compacted = (await say("/compact")) as { _meta: { lembas: { summary: string; turnId: string } } };
    await turn;
    expect(compacted._meta.lembas.summary).toBe("SUMMARY");
    // The compact's own turn started only after the talking turn ended.
    const tasks = lembasEvents(link, sessionId).filter((e) => e.type === "task").map((e) => `${e.state}:${e.turnId === compacted._meta.lembas.turnId ? "compact" : "talk"}`);
    expect(tasks).toEqual(["start:talk", "end:talk", "start:compact", "end:compact"]);
  });
});

describe("_lembas/files/search", () => {
  beforeEach(() => {
    mkdirSync(join(project, "src", "components"), { recursive: true });
    mkdirSync(join(project, "node_modules", "lib"), { recursive: true });
    writeFileSync(join(project, ".gitignore"), "node_modules/\n");
    writeFileSync(join(project, "src", "components", "Button.tsx"), "");
    writeFileSync(join(project, "src", "button-utils.ts"), "");
    writeFileSync(join(project, "node_modules", "lib", "button.js"), "");
    writeFileSync(join(project, "README.md"), "");
  });

  test("answers from the device's index: relative paths, gitignored files left out, directories too", async () => {
    const result = (await link.request("_lembas/files/search", { sessionId, query: "button" })) as { root: string; files: { path: string; kind: string }[] };
    expect(result.root).toBe(project);
    const paths = result.files.map((f) => f.path);
    expect(paths).toContain("src/components/Button.tsx");
    expect(paths).toContain("src/button-utils.ts");
    expect(paths.some((p) => p.includes("node_modules"))).toBe(false);
    const dirs = (await link.request("_lembas/files/search", { cwd: project, query: "comp" })) as { files: { path: string; kind: string }[] };
    expect(dirs.files).toContainEqual({ path: "src/components", kind: "dir" });
  });

  test("a file attached with @ comes first for an empty query", async () => {
    model.push(step({ text: "ok" }));
    await say("look at @README.md");
    const recent = (await link.request("_lembas/files/search", { sessionId, query: "" })) as { files: { path: string }[] };
    expect(recent.files[0]?.path).toBe("README.md");
  });

  test("a cwd outside the roots and a limit of 500 are refused", async () => {
    const outside = await rpcError(link.request("_lembas/files/search", { cwd: d.box.dir, query: "x" }));
    expect(outside).toMatchObject({ code: -32602, message: expect.stringContaining("outside the device's remote roots") });
    const tooMany = await rpcError(link.request("_lembas/files/search", { sessionId, query: "x", limit: 500 }));
    expect(tooMany).toMatchObject({ code: -32602, message: expect.stringContaining("limit is 1 to 50") });
  });
});
