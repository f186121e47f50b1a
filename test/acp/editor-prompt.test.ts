import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { type Device, linkedSession } from "../support/device.ts";
import { isStep, step } from "../support/engine.ts";
import type { Link } from "../support/instance.ts";
import { contentText, personText } from "../support/model.ts";

/** The prompts of an editor on `serve --stdio`: its unsaved buffers, and @-mentions where it wrote them. */
describe("serve --stdio", () => {
  let a: StdioAgent;
  beforeEach(async () => {
    a = await startStdioAgent();
  });
  afterEach(async () => {
    for (const line of a.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    await a.close();
  });

  const newSession = async (cwd = a.project) => {
    await a.agent.request("initialize", initializeParams);
    return (await a.agent.request("session/new", { cwd, mcpServers: [] })).sessionId;
  };
  /** Sends one prompt (its turn answering "ok") and returns the person's message the model got. */
  const prompt = async (sessionId: string, blocks: unknown[]) => {
    a.model.push(step({ text: "ok" }));
    await a.agent.request("session/prompt", { sessionId, prompt: blocks as never });
    const users = a.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages?.filter((m) => m.role === "user") ?? [];
    return personText(users.at(-1)?.content);
  };
  const uri = (...parts: string[]) => pathToFileURL(join(a.project, ...parts)).href;
  const copies = () => {
    const dir = join(a.box.stateDir, "attachments");
    return existsSync(dir) ? readdirSync(dir, { recursive: true }).filter((f) => String(f).includes(".")) : [];
  };
  const lines = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `line ${i + from}`).join("\n") + "\n";
  const numbered = (text: string, from = 1) =>
    text
      .replace(/\n$/, "")
      .split("\n")
      .map((line, i) => `${String(from + i).padStart(6)}\t${line}`)
      .join("\n");
  const unsavedNote = (path: string) => `(${path} has changes in the editor that are not saved: this is the editor's text, and the file on disk differs; read the file before changing it)`;

  describe("an embedded resource with the editor's unsaved text", () => {
    test("a selection of changed lines is those lines as sent, numbered where they stand, never the disk's", async () => {
      writeFileSync(join(a.project, "a.ts"), lines(6));
      const sessionId = await newSession();
      const seen = await prompt(sessionId, [{ type: "text", text: "this" }, { type: "resource", resource: { uri: `${uri("a.ts")}#L3-L4`, text: "line 3 changed\nline 4\n" } }]);
      expect(seen).toContain(`<file path="a.ts" lines="3-4" unsaved="true">\n${numbered("line 3 changed\nline 4", 3)}\n</file>`);
      expect(seen).not.toContain("\tline 3\n");
    });

    test("a file whose disk has CRLF and the same text is the file as saved; one that differs beyond line endings is unsaved", async () => {
      writeFileSync(join(a.project, "crlf.txt"), "one\r\ntwo\r\n");
      writeFileSync(join(a.project, "lf.txt"), "one\ntwo\n");
      const sessionId = await newSession();
      const seen = await prompt(sessionId, [
        { type: "text", text: "these" },
        { type: "resource", resource: { uri: uri("crlf.txt"), text: "one\ntwo\n" } },
        { type: "resource", resource: { uri: uri("lf.txt"), text: "one\r\ntwo\r\nthree\r\n" } },
      ]);
      expect(seen).toContain('<file path="crlf.txt">');
      expect(seen).toContain(`<file path="lf.txt" unsaved="true">\n${numbered("one\ntwo\nthree")}\n</file>\n${unsavedNote("lf.txt")}`);
    });

    test("a file of the project outside the session's cwd is attached under its path in the project", async () => {
      mkdirSync(join(a.project, ".git"));
      mkdirSync(join(a.project, "sub"));
      writeFileSync(join(a.project, "other.ts"), lines(2));
      const sessionId = await newSession(join(a.project, "sub"));
      const seen = await prompt(sessionId, [{ type: "text", text: "this" }, { type: "resource", resource: { uri: uri("other.ts"), text: "changed\n" } }]);
      expect(seen).toContain(`<file path="other.ts" unsaved="true">\n${numbered("changed")}\n</file>\n${unsavedNote("other.ts")}`);
      expect(copies()).toEqual([]);
    });

    test("a file named through a symlink is attached under its real path", async () => {
      writeFileSync(join(a.project, "real.ts"), lines(2));
      symlinkSync(join(a.project, "real.ts"), join(a.project, "link.ts"));
      const sessionId = await newSession();
      const seen = await prompt(sessionId, [{ type: "text", text: "this" }, { type: "resource", resource: { uri: uri("link.ts"), text: "changed\n" } }]);
      expect(seen).toContain(`<file path="real.ts" unsaved="true">\n${numbered("changed")}\n</file>\n${unsavedNote("real.ts")}`);
      expect(copies()).toEqual([]);
    });

    test("a resource with a mimeType, as text or as base64, is the editor's text, never the disk's", async () => {
      writeFileSync(join(a.project, "notes.md"), "# On disk\n");
      writeFileSync(join(a.project, "blob.md"), "# On disk\n");
      const sessionId = await newSession();
      const seen = await prompt(sessionId, [
        { type: "text", text: "these" },
        { type: "resource", resource: { uri: uri("notes.md"), mimeType: "text/markdown", text: "# In the editor\n" } },
        { type: "resource", resource: { uri: uri("blob.md"), mimeType: "text/markdown", blob: Buffer.from("# Typed\n").toString("base64") } },
      ]);
      expect(seen).toContain(`<file path="notes.md" unsaved="true">\n${numbered("# In the editor")}\n</file>`);
      expect(seen).toContain(`<file path="blob.md" unsaved="true">\n${numbered("# Typed")}\n</file>`);
      expect(seen).not.toContain("On disk");
    });

    test("two resources of one file with the same text are attached once", async () => {
      writeFileSync(join(a.project, "a.ts"), lines(2));
      const sessionId = await newSession();
      const resource = { type: "resource", resource: { uri: uri("a.ts"), text: "changed\n" } };
      const seen = await prompt(sessionId, [{ type: "text", text: "this" }, resource, resource]);
      expect(seen.split('<file path="a.ts" unsaved="true">')).toHaveLength(2);
    });

    test("a file not on disk yet is the editor's text under its path, said to be not saved, not a copy", async () => {
      mkdirSync(join(a.project, "src"));
      const sessionId = await newSession();
      const seen = await prompt(sessionId, [{ type: "text", text: "this" }, { type: "resource", resource: { uri: uri("src", "new.ts"), text: "export const x = 1;\n" } }]);
      expect(seen).toContain(`<file path="src/new.ts" unsaved="true">\n${numbered("export const x = 1;")}\n</file>\n(src/new.ts is not saved yet: this is the editor's text, and there is no such file on disk)`);
      expect(copies()).toEqual([]);
    });

    test("a long buffer is attached within an @file's limits, cut with a note", async () => {
      const counted = (from: number) => Array.from({ length: 3000 }, (_, i) => `${i + from}`).join("\n") + "\n";
      writeFileSync(join(a.project, "long.ts"), counted(1));
      const sessionId = await newSession();
      // 3,000 short lines: cut at an @file's 2,000.
      let seen = await prompt(sessionId, [{ type: "text", text: "this" }, { type: "resource", resource: { uri: uri("long.ts"), text: counted(0) } }]);
      expect(seen).toContain(`${numbered("1999", 2000)}\n[… cut at line 2000 of 3000: read the file for the rest]\n</file>\n${unsavedNote("long.ts")}`);
      expect(seen).not.toContain("\t2000\n");
      // Long lines: cut at an @file's characters.
      seen = await prompt(sessionId, [{ type: "text", text: "this" }, { type: "resource", resource: { uri: uri("long.ts"), text: `${"y".repeat(100)}\n`.repeat(1000) } }]);
      expect(seen).toMatch(/\n\[… cut at line 27\d of 1000: read the file for the rest\]\n<\/file>/);
    });

    test("a file on disk too large to compare is still the editor's text when that differs", async () => {
      writeFileSync(join(a.project, "big.log"), "x".repeat(17 * 1024 * 1024));
      const sessionId = await newSession();
      const seen = await prompt(sessionId, [{ type: "text", text: "this" }, { type: "resource", resource: { uri: uri("big.log"), text: "short\n" } }]);
      expect(seen).toContain(`<file path="big.log" unsaved="true">\n${numbered("short")}\n</file>`);
    });
  });

  describe("@-mentions where the editor wrote them", () => {
    test("[text, resource_link, text] is one sentence with @file.md in place, the file attached as an @path and counted as read", async () => {
      writeFileSync(join(a.project, "file.md"), "# Title\nbody\n");
      const sessionId = await newSession();
      a.model.push(step({ toolCalls: [{ name: "edit", arguments: { path: "file.md", old_string: "body", new_string: "BODY" } }] }), step({ text: "done" }));
      await a.agent.request("session/prompt", {
        sessionId,
        prompt: [
          { type: "text", text: "Summarize " },
          { type: "resource_link", uri: uri("file.md"), name: "file.md" },
          { type: "text", text: " in one line" },
        ],
      });
      const steps = a.model.requests.filter((r) => isStep(r.body));
      const user = personText(steps[0]?.body.messages?.findLast((m) => m.role === "user")?.content);
      expect(user).toBe(`Summarize @file.md in one line\n\n<file path="file.md">\n${numbered("# Title\nbody")}\n</file>`);
      // Counted as read: the model edits it without reading it first.
      const result = contentText(steps[1]?.body.messages?.findLast((m) => m.role === "tool")?.content);
      expect(result).toStartWith("Edited");
      expect(readFileSync(join(a.project, "file.md"), "utf8")).toBe("# Title\nBODY\n");
    });

    test("an embedded resource, a selection and a path with spaces stand in place in the @-syntax", async () => {
      writeFileSync(join(a.project, "my notes.md"), "alpha\n");
      writeFileSync(join(a.project, "a.ts"), lines(5));
      const sessionId = await newSession();
      const seen = await prompt(sessionId, [
        { type: "text", text: "Compare " },
        { type: "resource", resource: { uri: uri("my notes.md"), mimeType: "text/markdown", text: "alpha\n" } },
        { type: "text", text: " with " },
        { type: "resource_link", uri: `${uri("a.ts")}#L2:3`, name: "a.ts" },
        { type: "text", text: "." },
      ]);
      expect(seen).toStartWith("Compare @my\\ notes.md with @a.ts#2-3.\n\n");
      expect(seen).toContain(`<file path="my notes.md">\n${numbered("alpha")}\n</file>`);
      expect(seen).toContain(`<file path="a.ts" lines="2-3">\n${numbered("line 2\nline 3", 2)}\n</file>`);
    });

    test("a prompt that begins and ends with a mention, two in a row, and one alone", async () => {
      writeFileSync(join(a.project, "a.md"), "A\n");
      writeFileSync(join(a.project, "b.md"), "B\n");
      const sessionId = await newSession();
      const link = (name: string) => ({ type: "resource_link", uri: uri(name), name });
      expect(await prompt(sessionId, [link("a.md"), { type: "text", text: " and " }, link("b.md")])).toStartWith("@a.md and @b.md\n\n");
      expect(await prompt(sessionId, [{ type: "text", text: "diff " }, link("a.md"), { type: "text", text: " " }, link("b.md"), link("a.md")])).toStartWith("diff @a.md @b.md @a.md\n\n");
      const alone = await prompt(sessionId, [link("b.md")]);
      expect(alone).toBe(`@b.md\n\n<file path="b.md">\n${numbered("B")}\n</file>`);
      // A mention sent with no space around it is kept apart from the words it would fuse with.
      expect(await prompt(sessionId, [{ type: "text", text: "compare" }, link("a.md"), { type: "text", text: "and" }, link("b.md"), { type: "text", text: "." }])).toStartWith("compare @a.md and @b.md.\n\n");
      // Text blocks in a row are joined as written too.
      expect(await prompt(sessionId, [{ type: "text", text: "one" }, { type: "text", text: " two" }])).toBe("one two");
    });

    test("a mention is relative to the session's root, and only what it names is attached", async () => {
      mkdirSync(join(a.project, ".git"));
      mkdirSync(join(a.project, "sub"));
      writeFileSync(join(a.project, "sub", "a.md"), "in sub\n");
      // What the mention would name read from the cwd: never attached.
      mkdirSync(join(a.project, "sub", "sub"));
      writeFileSync(join(a.project, "sub", "sub", "a.md"), "decoy\n");
      const sessionId = await newSession(join(a.project, "sub"));
      const seen = await prompt(sessionId, [{ type: "text", text: "read " }, { type: "resource_link", uri: uri("sub", "a.md"), name: "a.md" }, { type: "text", text: " now" }]);
      expect(seen).toBe(`read @sub/a.md now\n\n<file path="sub/a.md">\n${numbered("in sub")}\n</file>`);
    });

    test("an unsaved buffer stands in place as its @path, attached as the editor's text", async () => {
      writeFileSync(join(a.project, "a.ts"), lines(2));
      const sessionId = await newSession();
      const seen = await prompt(sessionId, [{ type: "text", text: "fix " }, { type: "resource", resource: { uri: uri("a.ts"), text: "typed\n" } }, { type: "text", text: " please" }]);
      expect(seen).toBe(`fix @a.ts please\n\n<file path="a.ts" unsaved="true">\n${numbered("typed")}\n</file>\n${unsavedNote("a.ts")}`);
    });

    test("outside the project or not a file: today's text, still in place; an @path typed in the text is still attached", async () => {
      const outside = join(a.box.dir, "elsewhere.md");
      writeFileSync(outside, "far\n");
      writeFileSync(join(a.project, "typed.md"), "typed\n");
      const sessionId = await newSession();
      const seen = await prompt(sessionId, [
        { type: "text", text: "see " },
        { type: "resource_link", uri: "https://example.com/doc", name: "doc" },
        { type: "text", text: ", " },
        { type: "resource_link", uri: pathToFileURL(outside).href, name: "elsewhere.md" },
        { type: "text", text: ", " },
        { type: "resource", resource: { uri: pathToFileURL(outside).href, text: "far\n" } },
        { type: "text", text: " and @typed.md" },
      ]);
      expect(seen).toStartWith(`see (see https://example.com/doc), (see ${pathToFileURL(outside).href}), elsewhere.md and @typed.md\n\n`);
      expect(seen).toContain(`<file path="typed.md">\n${numbered("typed")}\n</file>`);
      expect(seen).toContain('<file name="elsewhere.md" path="');
    });
  });
});

describe("the link", () => {
  let d: Device;
  let link: Link;
  let sessionId: string;
  beforeEach(async () => {
    ({ d, link, sessionId } = await linkedSession());
  });
  afterEach(() => d.close());

  test("blocks are joined by a blank line and a resource_link is (see uri), as the spec says", async () => {
    writeFileSync(join(d.project, "file.md"), "# Title\n");
    const fileUri = pathToFileURL(join(d.project, "file.md")).href;
    d.model.push(step({ text: "ok" }));
    await link.request(
      "session/prompt",
      { sessionId, prompt: [{ type: "text", text: "Summarize " }, { type: "resource_link", uri: fileUri, name: "file.md" }, { type: "text", text: " in one line" }] },
      30_000,
    );
    const user = d.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages?.findLast((m) => m.role === "user");
    expect(personText(user?.content)).toBe(`Summarize \n\n(see ${fileUri})\n\n in one line`);
  });
});
