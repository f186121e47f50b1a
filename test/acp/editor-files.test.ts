import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Device, startDevice } from "../support/device.ts";
import { editorFsParams, type EditorFsHandlers, initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { isStep, step } from "../support/engine.ts";
import { contentText } from "../support/model.ts";

/**
 * An editor that offers its files (clientCapabilities.fs): lembas reads the person's buffers
 * through fs/read_text_file and writes through fs/write_text_file, the disk left to the editor.
 */

let a: StdioAgent | null = null;
let d: Device | null = null;
afterEach(async () => {
  await a?.close();
  a = null;
  await d?.close();
  d = null;
});

/** An editor whose buffers are `buffers` (by absolute path), writes going into them; a file it has no buffer of comes from disk, as an editor reads it. */
function editor(buffers: Map<string, string>): EditorFsHandlers {
  return {
    read: ({ path }) => ({ content: buffers.get(path) ?? readFileSync(path, "utf8") }),
    write: ({ path, content }) => {
      buffers.set(path, content);
      return {};
    },
  };
}

async function start(fs: EditorFsHandlers, env: Record<string, string> = {}): Promise<StdioAgent> {
  a = await startStdioAgent({ fs, env });
  return a;
}

async function prompt(agent: StdioAgent, text: string, init: typeof editorFsParams | typeof initializeParams = editorFsParams) {
  await agent.agent.request("initialize", init);
  const { sessionId } = await agent.agent.request("session/new", { cwd: agent.project, mcpServers: [], _meta: { mode: "auto" } });
  const answer = await agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  return { sessionId, answer };
}

/** What the model was told of each tool call, in order. */
const toolResults = (agent: StdioAgent): string[] =>
  agent.model.requests
    .filter((r) => isStep(r.body))
    .at(-1)
    ?.body.messages?.filter((m) => m.role === "tool")
    .map((m) => contentText(m.content)) ?? [];

describe("the editor's buffers are what the model sees", () => {
  test("read gives the unsaved buffer's text, not the disk's", async () => {
    const agent = await start({ read: () => ({ content: "unsaved line\n" }) });
    writeFileSync(join(agent.project, "a.txt"), "saved line\n");
    agent.model.push(step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }), step({ text: "ok" }));
    const { answer } = await prompt(agent, "read a.txt");
    expect(answer.stopReason).toBe("end_turn");
    expect(agent.fsRequests.map((r) => [r.method, r.params.path])).toEqual([["fs/read_text_file", join(agent.project, "a.txt")]]);
    const told = toolResults(agent)[0] ?? "";
    expect(told).toContain("unsaved line");
    expect(told).not.toContain("saved line\n");
  });

  test("an @mention attaches the unsaved buffer's text", async () => {
    const agent = await start({ read: () => ({ content: "the buffer, not saved\n" }) });
    writeFileSync(join(agent.project, "notes.md"), "on disk\n");
    agent.model.push(step({ text: "ok" }));
    await prompt(agent, "summarize @notes.md");
    const sent = JSON.stringify(agent.model.requests.find((r) => isStep(r.body))?.body.messages);
    expect(sent).toContain("the buffer, not saved");
    expect(sent).not.toContain("on disk");
  });
});

describe("writes go to the editor", () => {
  test("write and edit go through fs/write_text_file, on the buffer's text, and the disk is untouched", async () => {
    const buffers = new Map<string, string>();
    const agent = await start(editor(buffers));
    const file = join(agent.project, "a.txt");
    writeFileSync(file, "one\ntwo\n");
    buffers.set(file, "one\ntwo\nthree (unsaved)\n");
    agent.model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }),
      step({ toolCalls: [{ name: "edit", arguments: { path: "a.txt", old_string: "three (unsaved)", new_string: "THREE" } }] }),
      step({ toolCalls: [{ name: "write", arguments: { path: "b.txt", content: "new file\n" } }] }),
      step({ text: "ok" }),
    );
    const { answer } = await prompt(agent, "change them");
    expect(answer.stopReason).toBe("end_turn");
    expect(toolResults(agent).slice(1).map((t) => t.split(" (")[0])).toEqual(["Edited a.txt", "Created b.txt"]);
    const writes = agent.fsRequests.filter((r) => r.method === "fs/write_text_file").map((r) => r.params);
    expect(writes.map((w) => [w.path, "content" in w ? w.content : null])).toEqual([
      [file, "one\ntwo\nTHREE\n"],
      [join(agent.project, "b.txt"), "new file\n"],
    ]);
    expect(readFileSync(file, "utf8")).toBe("one\ntwo\n");
    expect(() => readFileSync(join(agent.project, "b.txt"))).toThrow();
  });

  test("a buffer changed in the editor between read and edit is refused as changed, and nothing is written", async () => {
    let reads = 0;
    // The person types into the buffer after the model read it.
    const agent = await start({ ...editor(new Map()), read: () => ({ content: ++reads === 1 ? "alpha\n" : "alpha\nbeta typed by the person\n" }) });
    const file = join(agent.project, "a.txt");
    writeFileSync(file, "alpha\n");
    agent.model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }),
      step({ toolCalls: [{ name: "edit", arguments: { path: "a.txt", old_string: "alpha", new_string: "ALPHA" } }] }),
      step({ text: "ok" }),
    );
    await prompt(agent, "edit it");
    expect(toolResults(agent)[1]).toContain("a.txt has changed since you last read it");
    expect(agent.fsRequests.some((r) => r.method === "fs/write_text_file")).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("alpha\n");
  });

  test("undo puts the buffer's text from before the turn back through fs/write_text_file, the disk untouched", async () => {
    const buffers = new Map<string, string>();
    const agent = await start(editor(buffers));
    const file = join(agent.project, "a.txt");
    writeFileSync(file, "saved\n");
    buffers.set(file, "unsaved\n");
    agent.model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }),
      step({ toolCalls: [{ name: "edit", arguments: { path: "a.txt", old_string: "unsaved", new_string: "edited" } }] }),
      step({ text: "ok" }),
    );
    const { sessionId } = await prompt(agent, "edit it");
    expect(buffers.get(file)).toBe("edited\n");
    const writes = () => agent.fsRequests.filter((r) => r.method === "fs/write_text_file").map((r) => r.params);
    expect(writes()).toHaveLength(1);
    const undo = await agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/undo" }] });
    expect(undo._meta?.lembas).toMatchObject({ undone: { files: ["a.txt"], skipped: [] } });
    expect(writes().at(-1)).toMatchObject({ path: file, content: "unsaved\n" });
    expect(buffers.get(file)).toBe("unsaved\n");
    // Nothing was written behind the editor's back.
    expect(readFileSync(file, "utf8")).toBe("saved\n");
  });

  test("undo leaves a buffer the person changed after the turn as it is, and says so", async () => {
    const buffers = new Map<string, string>();
    const agent = await start(editor(buffers));
    const file = join(agent.project, "a.txt");
    writeFileSync(file, "saved\n");
    agent.model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }),
      step({ toolCalls: [{ name: "edit", arguments: { path: "a.txt", old_string: "saved", new_string: "edited" } }] }),
      step({ text: "ok" }),
    );
    const { sessionId } = await prompt(agent, "edit it");
    buffers.set(file, "edited, and typed over\n");
    const undo = await agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/undo" }] });
    expect(undo._meta?.lembas).toMatchObject({ undone: { files: [], skipped: [{ path: "a.txt", why: expect.stringContaining("changed after the turn") }] } });
    expect(buffers.get(file)).toBe("edited, and typed over\n");
    expect(agent.fsRequests.filter((r) => r.method === "fs/write_text_file")).toHaveLength(1);
  });
});

describe("undo of a file the turn created through the editor", () => {
  for (const saves of [false, true]) {
    test(`is left in the editor${saves ? ", and on the disk the editor saved it to," : ""} with the true reason; a command's new file is deleted`, async () => {
      const buffers = new Map<string, string>();
      const keeps = editor(buffers);
      // An editor like Zed saves what it is sent; others keep it in the buffer until the person saves.
      const saving: EditorFsHandlers = {
        ...keeps,
        write: (params, signal) => {
          writeFileSync(params.path, params.content);
          return keeps.write?.(params, signal) ?? {};
        },
      };
      const agent = await start(saves ? saving : keeps);
      const made = join(agent.project, "c.txt");
      agent.model.push(
        step({ toolCalls: [{ name: "write", arguments: { path: "c.txt", content: "new c\n" } }] }),
        step({ toolCalls: [{ name: "bash", arguments: { command: "printf 'by a command\\n' > d.txt" } }] }),
        step({ text: "ok" }),
      );
      const { sessionId } = await prompt(agent, "make them");
      expect(readFileSync(join(agent.project, "d.txt"), "utf8")).toBe("by a command\n");
      const undo = await agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/undo" }] });
      expect(undo._meta?.lembas).toMatchObject({
        undone: { files: ["d.txt"], skipped: [{ path: "c.txt", why: "lembas cannot delete a file through the editor: delete c.txt there" }] },
      });
      expect(buffers.get(made)).toBe("new c\n");
      expect(existsSync(made)).toBe(saves);
      expect(existsSync(join(agent.project, "d.txt"))).toBe(false);
    });
  }
});

describe("an editor that fails is never a hung turn", () => {
  /** The editor's buffer of a.txt, unsaved: what a write through it would replace. */
  const UNSAVED = "typed in the editor, not saved\n";
  const failing = (how: "error" | "never" | "garbage" | "huge", buffer: { text: string }): EditorFsHandlers => {
    const answer = async (signal: AbortSignal) => {
      if (how === "error") throw new Error("the buffer is locked");
      if (how === "garbage") return { nope: 42 } as unknown as { content: string };
      // A mebibyte past the 16 MiB lembas reads of an editor's answer.
      if (how === "huge") return { content: "x".repeat(17 * 1024 * 1024) };
      return new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(new Error("cancelled"))));
    };
    // Garbage or 17 MiB is a read's failure only: a write's answer carries nothing to be wrong in, and it would replace the buffer.
    const writes = how === "error" || how === "never";
    return {
      read: (_, signal) => answer(signal),
      write: ({ content }, signal) => {
        if (writes) return answer(signal).then(() => ({}));
        buffer.text = content;
        return {};
      },
    };
  };

  const cases = { error: "an error", never: "never given", garbage: "garbage", huge: "17 MiB of text" } as const;
  const why = { error: "the buffer is locked", never: "did not answer within 0.5 s", garbage: "the editor's answer held no text", huge: "larger than 16 MiB" } as const;
  for (const [how, said] of Object.entries(cases) as [keyof typeof cases, string][]) {
    test(`a client whose answer is ${said}: read gives the disk, write and edits are refused without writing over the unread buffer, and the turn ends`, async () => {
      const buffer = { text: UNSAVED };
      // The time limit is short only where it is what ends the wait: the others must not meet it on a loaded machine.
      const agent = await start(failing(how, buffer), { LEMBAS_TEST_EDITOR_FILES_MS: how === "never" ? "500" : "60000" });
      const file = join(agent.project, "a.txt");
      writeFileSync(file, "from the disk\n");
      agent.model.push(
        step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }),
        step({ toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "replaced\n" } }] }),
        step({ toolCalls: [{ name: "edit", arguments: { path: "a.txt", old_string: "disk", new_string: "model" } }] }),
        step({ toolCalls: [{ name: "multi_edit", arguments: { path: "a.txt", edits: [{ old_string: "disk", new_string: "model" }] } }] }),
        step({ text: "ok" }),
      );
      const { answer } = await prompt(agent, "go");
      expect(answer.stopReason).toBe("end_turn");
      const [read, ...changes] = toolResults(agent);
      expect(read).toContain("from the disk");
      expect(read).toContain("so this is the file as saved on disk");
      expect(changes).toHaveLength(3);
      for (const change of changes) {
        expect(change).toContain("a.txt: not written: the editor's copy could not be read");
        expect(change).toContain("that you have not seen");
        expect(change).toContain(why[how]);
      }
      expect(agent.fsRequests.filter((r) => r.method === "fs/write_text_file")).toHaveLength(0);
      expect(buffer.text).toBe(UNSAVED);
      expect(readFileSync(file, "utf8")).toBe("from the disk\n");
    });
  }

  test("cancelling the turn aborts the request the editor has not answered", async () => {
    let aborted: () => void = () => {};
    const abortedSeen = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    // No time limit to speak of: only the cancel can end the wait.
    const agent = await start(
      {
        read: (_, signal) =>
          new Promise((_, reject) =>
            signal.addEventListener("abort", () => {
              aborted();
              reject(new Error("cancelled"));
            }),
          ),
      },
      { LEMBAS_TEST_EDITOR_FILES_MS: "600000" },
    );
    writeFileSync(join(agent.project, "a.txt"), "x\n");
    agent.model.push(step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }), step({ text: "ok" }));
    await agent.agent.request("initialize", editorFsParams);
    const { sessionId } = await agent.agent.request("session/new", { cwd: agent.project, mcpServers: [], _meta: { mode: "auto" } });
    const running = agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    while (agent.fsRequests.length === 0) await Bun.sleep(10);
    await agent.agent.notify("session/cancel", { sessionId });
    await abortedSeen;
    expect((await running).stopReason).toBe("cancelled");
  });
});

test("through a running service, the editor's buffers are read and written as in the editor's own process", async () => {
  d = await startDevice();
  await d.serve();
  const buffers = new Map<string, string>();
  const agent = await startStdioAgent({ device: d, model: d.model, fs: editor(buffers) });
  a = agent;
  const file = join(agent.project, "a.txt");
  writeFileSync(file, "saved\n");
  buffers.set(file, "unsaved\n");
  d.model.push(
    step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }),
    step({ toolCalls: [{ name: "edit", arguments: { path: "a.txt", old_string: "unsaved", new_string: "edited" } }] }),
    step({ text: "ok" }),
  );
  await prompt(agent, "edit it");
  expect(toolResults(agent)[0]).toContain("unsaved");
  expect(buffers.get(file)).toBe("edited\n");
  expect(readFileSync(file, "utf8")).toBe("saved\n");
  expect(d.log()).toContain("an editor's serve --stdio connected");
});

describe("the editor's files are bound as the disk's", () => {
  test("a protected file and one outside the project are judged before the editor is asked", async () => {
    const agent = await start(editor(new Map()));
    writeFileSync(join(agent.project, ".env"), "TOKEN=1\n");
    writeFileSync(join(agent.box.dir, "outside.txt"), "outside\n");
    agent.onPermission = () => ({ outcome: { outcome: "selected", optionId: "deny" } });
    agent.model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: ".env" } }, { name: "read", arguments: { path: join(agent.box.dir, "outside.txt") } }] }),
      step({ text: "ok" }),
    );
    await prompt(agent, "read them");
    const [secret, outside] = toolResults(agent);
    expect(secret).not.toContain("TOKEN");
    expect(outside).not.toContain("outside\n");
    expect(agent.fsRequests).toEqual([]);
  });
});

describe("without the fs capability nothing changes", () => {
  test("a client that does not offer fs is never asked, and the disk is read and written", async () => {
    const agent = await start(editor(new Map()));
    const file = join(agent.project, "a.txt");
    writeFileSync(file, "disk\n");
    agent.model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }),
      step({ toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "written\n" } }] }),
      step({ text: "ok" }),
    );
    await prompt(agent, "go", initializeParams);
    expect(agent.fsRequests).toEqual([]);
    expect(toolResults(agent)[0]).toContain("disk");
    expect(readFileSync(file, "utf8")).toBe("written\n");
  });
});
