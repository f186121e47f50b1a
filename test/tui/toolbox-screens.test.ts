import { beforeEach, describe, expect, test } from "bun:test";
import { helperStep, ownStep, step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import { runLembas } from "../support/run.ts";
import { screenSuite } from "../support/screens.ts";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HAVE_TMUX } from "../support/tmux.ts";

// The blocks a person at the terminal sees for the toolbox's tools (jobs, task, fetch, multi_edit, MCP…).
const suite = screenSuite({ ready: "test/test-model" });
let model: ScriptedModel;
beforeEach(() => {
  ({ model } = suite);
});

describe.skipIf(!HAVE_TMUX)("the toolbox's blocks at the terminal", () => {
  test("a background job's block says it runs (pid) and what it printed, not the tool's directions; quitting names the jobs it stopped", async () => {
    model.push(
      step({ toolCalls: [{ name: "bash", arguments: { command: "echo listening on 3000; sleep 30", run_in_background: true } }] }),
      step({ toolCalls: [{ name: "job", arguments: { action: "stop", id: "job1" } }] }),
      step({ toolCalls: [{ name: "bash", arguments: { command: "printf 'one\\ntwo\\n'; exit 3", run_in_background: true } }] }),
      step({ toolCalls: [{ name: "bash", arguments: { command: "sleep 60", run_in_background: true } }] }),
      step({ text: "left one running" }),
    );
    const screen = await suite.open(["--mode", "auto"]);
    await screen.type("start the server", "Enter");
    await screen.waitFor("left one running");
    const text = screen.text();
    expect(text).toMatch(/⎿ job1 running in the background \(pid \d+\)\n\s+│ listening on 3000\n/);
    expect(text).not.toContain("Read its new output");
    expect(text).toContain("Stopped job1 and every process it started.");
    expect(text).toContain("job1 was stopped");
    expect(text).toMatch(/⎿ job2 ended at once: exit 3\n\s+│ one\n\s+│ two\n/);
    expect(text).toMatch(/⎿ job3 running in the background \(pid \d+\)/);
    await screen.type("C-d");
    expect(await screen.exited()).toBe(0);
    expect(screen.text()).toContain("Stopped the background job still running as the session ended: job3 (sleep 60)");
    expect(screen.text()).not.toContain("job1 (echo");
  });

  test("a task whose helper made many calls shows the newest under it and counts the earlier ones (and their failures)", async () => {
    for (let i = 1; i <= 9; i++) writeFileSync(join(suite.box.project, `f${i}.txt`), `file ${i}\n`);
    const reads = [{ name: "read", arguments: { path: "gone.txt" } }, ...Array.from({ length: 9 }, (_, i) => ({ name: "read", arguments: { path: `f${i + 1}.txt` } }))];
    model.push(
      ownStep({ toolCalls: [{ name: "task", arguments: { description: "read every file", prompt: "Read them all" } }] }),
      helperStep({ toolCalls: reads }),
      helperStep({ text: "all nine read" }),
      ownStep({ text: "The helper is done." }),
    );
    const screen = await suite.open(["--mode", "auto"]);
    await screen.type("read them", "Enter");
    await screen.waitFor("The helper is done.");
    const text = screen.text();
    expect(text).toContain("● Task: read every file\n    … 5 earlier calls (1 failed)\n    ● Read f5.txt\n");
    expect(text).toContain("    ● Read f9.txt\n  ⎿ all nine read");
    expect(text).not.toContain("Read f4.txt");
  });

  test("fetch: the card names the host and 'for this session'; the page is one line with its title; a private address's refusal is read to its end", async () => {
    const html = `<html><head><title>The Docs</title></head><body><h1>Install</h1><p>Run <code>npm i thing</code>.</p>${"<p>More.</p>".repeat(20)}</body></html>`;
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(html, { headers: { "content-type": "text/html" } }) });
    try {
      appendFileSync(join(suite.box.configDir, "config.yaml"), 'fetch:\n  allow_private: ["127.0.0.1"]\n');
      const host = `127.0.0.1:${server.port}`;
      model.push(
        step({ toolCalls: [{ name: "fetch", arguments: { url: `http://${host}/docs` } }] }),
        step({ toolCalls: [{ name: "fetch", arguments: { url: "http://192.168.1.1/admin" } }] }),
        step({ text: "fetched both" }),
      );
      const screen = await suite.open();
      await screen.type("read the docs", "Enter");
      await screen.waitFor(`${host} is a host not allowed for this session`);
      expect(screen.text()).toContain(`Yes, and allow fetching from ${host}, for this session`);
      await screen.type("2");
      // The private address is refused before anyone is asked about its host.
      await screen.waitFor("fetched both");
      expect(screen.text()).not.toContain("192.168.1.1 is a host not allowed");
      const text = screen.text();
      expect(text).toMatch(/● Fetch http:\/\/127\.0\.0\.1:\d+\/docs\n  ⎿ The Docs · text\/html, \d+ bytes, \d+ lines\n/);
      expect(text).toMatch(/[✗⊘] Fetch http:\/\/192\.168\.1\.1\/admin/);
      expect(text.replace(/\n\s+/g, " ")).toContain("192.168.1.1 is a loopback, link-local or private address, which fetch does not reach unless the person allows it (config fetch.allow_private).");
    } finally {
      await server.stop(true);
    }
  });

  test("web_search: the card asks as fetch's does, 'for this session' kept for the next search; the block lists the sources' titles and URLs", async () => {
    const server = join(import.meta.dir, "../support/mcp-server.ts");
    appendFileSync(join(suite.box.configDir, "config.yaml"), `web_search: mcp__notes__lookup\nmcp:\n  notes:\n    command: ${process.execPath}\n    args: [${server}]\n`);
    model.push(
      step({ toolCalls: [{ name: "web_search", arguments: { query: "lembas" } }] }),
      step({ toolCalls: [{ name: "web_search", arguments: { query: "elvish" } }] }),
      step({ text: "searched twice" }),
    );
    const screen = await suite.open();
    await screen.type("look it up", "Enter");
    await screen.waitFor("web_search reaches outside and is not allowed for this session");
    expect(screen.text()).toContain("Yes, and allow web_search calls, for this session");
    await screen.type("2");
    await screen.waitFor("searched twice");
    const text = screen.text();
    expect(text).toContain('● Search the web for "lembas"\n  ⎿ 1 source\n  │ The Word Dictionary — https://dictionary.example/lembas\n');
    expect(text).toContain('● Search the web for "elvish"\n  ⎿ 1 source\n  │ The Word Dictionary — https://dictionary.example/elvish\n');
    // The second search ran without a card: it was allowed for the session.
  });

  test("a project's .mcp.json: the card names the file, the server, its command and env names, and offers yes (kept) or no, not once; its tools' blocks name the server", async () => {
    const { box } = suite;
    const server = join(import.meta.dir, "../support/mcp-server.ts");
    writeFileSync(join(box.project, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { command: process.execPath, args: [server], env: { NOTE_TOKEN: "${HOME}" } } } }));
    expect((await runLembas(box, ["trust"], { cwd: box.project })).code).toBe(0);
    model.push(step({ toolCalls: [{ name: "mcp__proj__echo", arguments: { text: "hi there" } }] }), step({ text: "mcp done" }));
    const screen = await suite.open(["--mode", "auto"]);
    await screen.type("use it", "Enter");
    await screen.waitFor(`Use the MCP servers of ${join(box.project, ".mcp.json")}?`);
    const card = screen.text();
    expect(card).toContain(`proj: ${process.execPath} ${server}`);
    expect(card).toContain("sets NOTE_TOKEN");
    expect(card).toContain("1. Yes, start them (kept for this .mcp.json as it reads now)");
    expect(card).toContain("2. No, not in this session");
    expect(card).not.toContain("Yes, once");
    expect(card).not.toContain("tell the model what to do instead");
    await screen.type("1");
    await screen.waitFor("mcp done");
    expect(screen.text()).toMatch(/● proj: echo \{"text":"hi there"\}\n  ⎿ echo: hi there\n/);
  });

  test("a resumed session shows its todo list as the turn left it, where the model wrote it", async () => {
    model.push(
      step({ toolCalls: [{ name: "todo", arguments: { todos: [{ content: "look at a.txt", status: "in_progress" }, { content: "change it", status: "pending" }] } }] }),
      step({ toolCalls: [{ name: "todo", arguments: { todos: [{ content: "look at a.txt", status: "completed" }, { content: "change it", status: "in_progress" }] } }] }),
      step({ text: "listed" }),
    );
    const first = await suite.open();
    await first.type("make a list", "Enter");
    await first.waitFor("listed");
    await first.type("C-d");
    await first.exited();
    const id = /lembas -r (ses_[\w-]+)/.exec(first.text())?.[1] ?? "";
    const again = await suite.open(["-r", id], { ready: "listed" });
    expect(again.text()).toMatch(/› make a list\n\n☰ Todos \(1\/2 done\)\n  ☒ look at a\.txt\n  ▶ change it\n\nlisted/);
    expect(again.text().match(/☰ Todos/g)).toHaveLength(1);
  });

  test("plan mode's refused write reads as plan mode's rule and what happens next, live and resumed; no mode note is shown as the person's words", async () => {
    model.push(
      step({ toolCalls: [{ name: "write", arguments: { path: "b.txt", content: "x" } }] }),
      step({ text: "planned" }),
      step({ text: "carried out" }),
    );
    const first = await suite.open(["--mode", "plan"]);
    await first.type("plan it", "Enter");
    await first.waitFor("planned");
    const refusal = "⊘ Write b.txt\n  ⎿ refused: plan mode does not allow changing files; the model plans first (Shift+Tab changes the mode)\n";
    expect(first.text()).toContain(refusal);
    await first.type("BTab");
    await first.waitFor("test/test-model · manual");
    // The person's own change: said by the status bar, not by a line.
    expect(first.text()).not.toContain("mode: manual");
    await first.type("now go", "Enter");
    await first.waitFor("carried out");
    await first.type("C-d");
    await first.exited();
    expect(first.text()).not.toContain("[lembas]");
    const id = /lembas -r (ses_[\w-]+)/.exec(first.text())?.[1] ?? "";
    const again = await suite.open(["-r", id], { ready: "carried out" });
    expect(again.text()).toContain(refusal);
    expect(again.text()).not.toContain("[lembas]");
    const shown = await runLembas(suite.box, ["sessions", "show", id], { cwd: suite.box.project });
    expect(shown.stdout).toContain("── you\nplan it\n\n── lembas\n› Write b.txt (refused)\nplanned\n\n── you\nnow go\n\n");
    expect(shown.stdout).not.toContain("[lembas]");
  });

  test("a library search is one line of its sources; /compact is said once; resumed, a background job's block still reads as one", async () => {
    const { box } = suite;
    appendFileSync(join(box.configDir, "config.yaml"), "embedding: test/embed-a\n");
    mkdirSync(join(box.project, "docs"));
    writeFileSync(join(box.project, "docs/spec.md"), "# Spec\n\nintro\n\n## Retries\n\nA request that fails with 503 is retried three times with backoff.\n");
    expect((await runLembas(box, ["library", "add", "docs"], { cwd: box.project })).code).toBe(0);
    model.push(
      step({ toolCalls: [{ name: "library", arguments: { query: "how often is a failed request retried", limit: 3 } }] }),
      step({ toolCalls: [{ name: "bash", arguments: { command: "echo serving; sleep 30", run_in_background: true } }] }),
      step({ text: "Three times." }),
    );
    const first = await suite.open(["--mode", "auto"]);
    await first.type("how are requests retried?", "Enter");
    await first.waitFor("Three times.");
    const library = /● Search the library for "how often is a failed request retried"\n  ⎿ \d passages?: docs\/spec\.md:\d+-\d+/;
    expect(first.text()).toMatch(library);
    expect(first.text()).not.toContain("(score ");
    model.push(step({ text: "Summary: we looked at retries." }));
    await first.type("/compact", "Enter");
    await first.waitFor("compacted");
    await Bun.sleep(300);
    expect(first.text().match(/compacted/g)).toHaveLength(1);
    await first.type("C-d");
    await first.exited();
    const id = /lembas -r (ses_[\w-]+)/.exec(first.text())?.[1] ?? "";
    const again = await suite.open(["-r", id], { ready: "Three times." });
    expect(again.text()).toMatch(library);
    expect(again.text()).toMatch(/● Start in the background: echo serving; sleep 30\n  ⎿ job1 started in the background \(pid \d+\)\n    │ serving\n/);
    expect(again.text()).not.toContain("Read its new output");
  });

  test("/new with a background job running says the job was stopped with the session left", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "sleep 60", run_in_background: true } }] }), step({ text: "serving" }));
    const screen = await suite.open(["--mode", "auto"]);
    await screen.type("serve", "Enter");
    await screen.waitFor("serving");
    await screen.type("/new", "Enter");
    await screen.waitFor(/Stopped the background job still running as session ses_[\w-]+ was left: job1 \(sleep 60\)/);
  });

  test("multi_edit: the approval shows every hunk of the change, context cut before any change is; the block shows the diff", async () => {
    writeFileSync(join(suite.box.project, "big.txt"), `${Array.from({ length: 80 }, (_, i) => `line ${i + 1}`).join("\n")}\n`);
    const edits = [5, 15, 25, 35, 45, 55, 65].map((n) => ({ old_string: `line ${n}\n`, new_string: `line ${n} changed\n` }));
    model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "big.txt" } }] }),
      step({ toolCalls: [{ name: "multi_edit", arguments: { path: "big.txt", edits } }] }),
      step({ text: "edited" }),
    );
    const screen = await suite.open(["--mode", "manual"], { rows: 60 });
    await screen.type("edit it", "Enter");
    await screen.waitFor("manual mode asks before changing files");
    const card = screen.text();
    for (const n of [5, 15, 25, 35, 45, 55, 65]) expect(card).toContain(`│ -line ${n}\n│ +line ${n} changed\n`);
    expect(card).not.toContain("more diff lines");
    await screen.type("1");
    await screen.waitFor("edited");
    const block = screen.text();
    expect(block).toContain("● Edit big.txt (7 edits)\n  ⎿ big.txt: +7 −7\n");
    for (const n of [5, 35, 65]) expect(block).toContain(`    -line ${n}\n    +line ${n} changed\n`);
    expect(block).not.toContain("more diff lines");
  });
});
