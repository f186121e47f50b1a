import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { contentText, type ScriptedModel } from "../support/model.ts";
import { afterHeader, modelProjectEach, type ProjectSandbox, runLembas } from "../support/run.ts";
import { trustIn } from "../support/trust.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
modelProjectEach((made) => ({ box, model } = made));

const FAKE = resolve(import.meta.dir, "../support/fake-lsp.ts");
/** Waits long enough for a loaded machine to start the fake server: it answers at once, or (hang) never. */
const WAITS = { LEMBAS_TEST_LSP_WAIT_MS: "10000", LEMBAS_TEST_LSP_START_MS: "30000" };

/** The log the fake server appends its pid to at each start. */
const startsLog = () => join(box.dir, "starts.log");
const starts = () => (existsSync(startsLog()) ? readFileSync(startsLog(), "utf8").trim().split("\n").filter(Boolean).length : 0);

/** config.yaml with the test connection and the fake server, in MODE, for *.fake files; the project trusted unless said. */
function withServer(mode: string, opts: { trusted?: boolean; command?: string } = {}): void {
  const command = opts.command ?? process.execPath;
  const args = opts.command ? "[]" : JSON.stringify([FAKE, mode, startsLog()]);
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\nlsp:\n  fake:\n    command: ${command}\n    args: ${args}\n    extensions: [fake]\n`);
  if (opts.trusted ?? true) trustIn(box, box.project);
}

/** The model writes each of these contents to a.fake in turn, then ends. */
function writes(...contents: string[]): void {
  for (const content of contents) model.push(step({ toolCalls: [{ name: "write", arguments: { path: "a.fake", content } }] }));
  model.push(step({ text: "done" }));
}

const run = (waits: Record<string, string> = {}) => runLembas(box, ["run", "--yes", "write it"], { cwd: box.project, env: { ...WAITS, ...waits }, timeoutMs: 120_000 });
/** What the model read back of each tool call, in order. */
const toolResults = () => {
  const last = model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
  return last.filter((m) => m.role === "tool").map((m) => contentText(m.content));
};

describe("a language server after an edit", () => {
  test("the file's errors come after the write's result, each as path:line:col severity message; the turn ends with one line of them", async () => {
    withServer("ok");
    writes("fine\nERR here\n  WARN there\n");
    const result = await run();
    expect(result.code).toBe(0);
    expect(toolResults()).toEqual(["Created a.fake (3 lines).\n\nThe language server reports in a.fake now:\nnew:\na.fake:2:1 error bad thing on line 2"]);
    expect(afterHeader(result.stderr)).toContain("lembas: 1 error in a.fake");
  });

  test("a server that offers pull diagnostics is asked for them", async () => {
    withServer("pull");
    writes("ERR\n", "ok\nERR\n");
    const result = await run();
    expect(result.code).toBe(0);
    const [first, second] = toolResults();
    expect(first).toEndWith("a.fake:1:1 error bad thing on line 1");
    expect(second).toEndWith("a.fake:2:1 error bad thing on line 2");
  });

  test("a server that publishes nothing again for a file that stays clean (as typescript-language-server) is asked for its checks: clean edits are not taken for silence", async () => {
    withServer("tsserver");
    // Each clean edit once waited the whole wait for a publish that never came, and the third in a
    // row left the server unheard: the error of the fifth was not told.
    writes("fine\n", "fine 2\n", "fine 3\n", "fine 4\n", "x\nERR\n");
    const result = await run();
    expect(result.code).toBe(0);
    expect(toolResults()).toEqual(["Created a.fake (1 line).", "Wrote a.fake (1 line).", "Wrote a.fake (1 line).", "Wrote a.fake (1 line).", expect.stringContaining("The language server reports in a.fake now:\nnew:\na.fake:2:1 error bad thing on line 2")]);
    const said = afterHeader(result.stderr);
    expect(said).toContain("lembas: 1 error in a.fake");
    expect(said).not.toContain("said nothing");
  });

  test("a server that says (by $/progress) that its check is under way is waited for until it ends", async () => {
    withServer("progress");
    writes("ERR\n", "x\nERR\n");
    const result = await run();
    expect(result.code).toBe(0);
    const [first, second] = toolResults();
    expect(first).toEndWith("a.fake:1:1 error bad thing on line 1");
    expect(second).toEndWith("a.fake:2:1 error bad thing on line 2");
  });

  test("what a server publishes of a file's text before the edit (an older version) is not taken for the edit's", async () => {
    withServer("stale");
    writes("ERR\n", "x\nERR\n");
    const result = await run();
    expect(result.code).toBe(0);
    const [, second] = toolResults();
    expect(second).toEndWith("a.fake:2:1 error bad thing on line 2");
  });

  test("a server's first diagnostics, after its project loaded, are not waited on for as long again as the load took", async () => {
    withServer("late");
    writes("ERR\n");
    const result = await run();
    expect(result.code).toBe(0);
    // It says nothing of being busy: done once quiet, not 1.5 s later (what it publishes 1 s after is a later check's).
    expect(toolResults()[0]).toEndWith("The language server reports in a.fake now:\nnew:\na.fake:1:1 error bad thing on line 1");
  });

  test("the turn's line counts each file's errors as they are at its end, not as the file's last edit left them", async () => {
    withServer("ok");
    model.push(
      step({ toolCalls: [{ name: "write", arguments: { path: "a.fake", content: "ERR\n" } }] }),
      step({ toolCalls: [{ name: "write", arguments: { path: "b.fake", content: "ERR\nERR\n" } }] }),
      // A command mends a.fake after its write: its error is gone by the turn's end.
      step({ toolCalls: [{ name: "bash", arguments: { command: "printf 'fine\\n' > a.fake" } }] }),
      step({ text: "done" }),
    );
    const result = await run();
    expect(result.code).toBe(0);
    expect(toolResults()[0]).toContain("a.fake:1:1 error");
    expect(afterHeader(result.stderr)).toContain("lembas: 2 errors in b.fake\n");
  });

  test("the errors an edit brought come first as new; those the file had before it are counted as already there", async () => {
    withServer("ok");
    // Never seen by the server before the edit: its old content is checked first.
    writeFileSync(join(box.project, "a.fake"), "ERR old\nfine\n");
    model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "a.fake" } }] }),
      step({ toolCalls: [{ name: "edit", arguments: { path: "a.fake", old_string: "fine", new_string: "ERR new" } }] }),
      step({ toolCalls: [{ name: "edit", arguments: { path: "a.fake", old_string: "ERR new", new_string: "fine again" } }] }),
      step({ text: "done" }),
    );
    const result = await run();
    expect(result.code).toBe(0);
    const [, brought, mended] = toolResults();
    expect(brought).toEndWith("The language server reports in a.fake now:\nnew:\na.fake:2:1 error bad thing on line 2\nalready there before this edit: 1\na.fake:1:1 error bad thing on line 1");
    expect(mended).toEndWith("The language server reports in a.fake now:\nnew: none\nalready there before this edit: 1\na.fake:1:1 error bad thing on line 1");
    expect(afterHeader(result.stderr)).toContain("lembas: 1 error in a.fake\n");
  });

  test("warnings too when config.yaml says lsp_warnings: true", async () => {
    withServer("ok");
    writeFileSync(join(box.configDir, "config.yaml"), `${readFileSync(join(box.configDir, "config.yaml"), "utf8")}lsp_warnings: true\n`);
    writes("fine\nERR here\n  WARN there\n");
    const result = await run();
    expect(toolResults()[0]).toEndWith("a.fake:2:1 error bad thing on line 2\na.fake:3:3 warning odd thing on line 3");
    expect(afterHeader(result.stderr)).toContain("lembas: 1 error and 1 warning in a.fake");
  });

  test("an edit that leaves no error adds nothing, and the turn says nothing of it", async () => {
    withServer("ok");
    writes("ERR\n", "all good\n");
    const result = await run();
    expect(toolResults()).toEqual([expect.stringContaining("a.fake:1:1 error"), "Wrote a.fake (1 line)."]);
    expect(afterHeader(result.stderr)).not.toContain("error in a.fake");
  });

  test("a server that is not installed: nothing is said, nothing added", async () => {
    withServer("ok", { command: "no-such-language-server" });
    writes("ERR\n");
    const result = await run();
    expect(result.code).toBe(0);
    expect(toolResults()).toEqual(["Created a.fake (1 line)."]);
    expect(afterHeader(result.stderr)).not.toContain("language server");
  });

  test("in a project that is not trusted no server starts", async () => {
    withServer("ok", { trusted: false });
    writes("ERR\n");
    const result = await run();
    expect(result.code).toBe(0);
    expect(toolResults()).toEqual(["Created a.fake (1 line)."]);
    expect(starts()).toBe(0);
  });

  test("a server that crashes at start is left off with a notice quoting its stderr's last lines, tried once", async () => {
    withServer("crash-start");
    writes("ERR\n", "ERR again\n");
    const result = await run();
    expect(result.code).toBe(0);
    expect(toolResults()).toEqual(["Created a.fake (1 line).", "Wrote a.fake (1 line)."]);
    const said = afterHeader(result.stderr);
    expect(said).toMatch(/the fake language server \(.*\) did not start: it exited \(7\), saying "starting the fake server \/ error: Unknown binary 'fake' in toolchain \/ help: install its component"; lembas leaves it off for /);
    // Each write's title once, the notice said under the first.
    expect(said.split("\n").filter((line) => line === "› Write a.fake")).toHaveLength(2);
    expect(starts()).toBe(1);
  });

  test("a server that crashes mid-session is started again once, at once; when it crashes again it is left off with a notice", async () => {
    withServer("ok");
    writes("ERR\n", "CRASH\nERR\n", "x\nERR\n", "CRASH\n", "x\nx\nERR\n");
    const result = await run();
    expect(result.code).toBe(0);
    const [first, crashed, restarted, again, off] = toolResults();
    expect(first).toContain("a.fake:1:1 error");
    // The server that crashed on the change is started again, and it checks the file as written.
    expect(crashed).toContain("a.fake:2:1 error");
    expect(restarted).toContain("a.fake:2:1 error");
    expect(again).toBe("Wrote a.fake (1 line).");
    expect(off).toBe("Wrote a.fake (3 lines).");
    // Its end is seen as its exit or as its input closing, whichever comes first: either is a crash.
    expect(afterHeader(result.stderr)).toMatch(/the fake language server stopped again \((it exited \(3\)|its input closed \(.*?\))\): lembas leaves it off for /);
    expect(starts()).toBe(2);
  });

  test("a server left unused past its idle limit is stopped, and the next edit starts it again without a word", async () => {
    withServer("ok");
    model.push(
      step({ toolCalls: [{ name: "write", arguments: { path: "a.fake", content: "ERR\n" } }] }),
      // The command ends once the idle server has been told to exit.
      step({ toolCalls: [{ name: "bash", arguments: { command: `until [ -s '${startsLog()}.stopped' ]; do sleep 0.05; done` } }] }),
      step({ toolCalls: [{ name: "write", arguments: { path: "a.fake", content: "x\nERR\n" } }] }),
      step({ text: "done" }),
    );
    const result = await run({ LEMBAS_TEST_LSP_IDLE_MS: "300" });
    expect(result.code).toBe(0);
    const [first, , second] = toolResults();
    expect(first).toContain("a.fake:1:1 error");
    expect(second).toContain("a.fake:2:1 error");
    expect(starts()).toBe(2);
    expect(afterHeader(result.stderr)).not.toContain("language server");
  });

  test("a server that hangs: the edit waits its bounded time and adds nothing", async () => {
    withServer("hang");
    writes("ERR\n");
    // The whole wait is sat out here: a short one.
    const result = await run({ LEMBAS_TEST_LSP_WAIT_MS: "200" });
    expect(result.code).toBe(0);
    expect(toolResults()).toEqual(["Created a.fake (1 line)."]);
    expect(starts()).toBe(1);
  });

  test("a server that never reports diagnostics: after three edits it is no longer waited for, said once; its lookups still work", async () => {
    withServer("mute");
    writeFileSync(join(box.project, "b.fake"), "the definition\n");
    model.push(
      ...["ERR 1\n", "ERR 2\n", "ERR 3\n", "ERR 4\n", "ERR 5\n->b.fake\n"].map((content) => step({ toolCalls: [{ name: "write", arguments: { path: "a.fake", content } }] })),
      step({ toolCalls: [{ name: "lsp", arguments: { operation: "definition", path: "a.fake", line: 2, col: 1 } }] }),
      step({ text: "done" }),
    );
    const result = await run({ LEMBAS_TEST_LSP_WAIT_MS: "500" });
    expect(result.code).toBe(0);
    expect(toolResults().at(-1)).toBe("b.fake:1:1  the definition");
    const said = afterHeader(result.stderr).split("\n").filter((line) => line.includes("said nothing of 3 edits in a row"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("lembas no longer waits for its diagnostics in");
    expect(starts()).toBe(1);
  });

  test("a server that floods diagnostics: the first 20 are listed, the rest counted", async () => {
    withServer("flood");
    writes("ERR\n");
    const result = await run();
    expect(result.code).toBe(0);
    const lines = (toolResults()[0] ?? "").split("\n");
    expect(lines.filter((line) => /^a\.fake:\d+:1 error flood \d+$/.test(line))).toHaveLength(20);
    expect(lines.at(-1)).toBe("… and 980 more");
    expect(afterHeader(result.stderr)).toContain("lembas: 500 errors in a.fake");
  });

  test("a server that writes garbage on stdout is left off with a notice; lembas goes on", async () => {
    withServer("garbage");
    writes("ERR\n", "ERR\n");
    const result = await run();
    expect(result.code).toBe(0);
    expect(toolResults()).toEqual(["Created a.fake (1 line).", "Wrote a.fake (1 line)."]);
    expect(afterHeader(result.stderr)).toContain('the fake language server broke off (it wrote "[info] checking the file now" where a header belongs): lembas leaves it off for');
    expect(starts()).toBe(1);
  });
});
