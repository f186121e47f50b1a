/** The lsp tool against the fake server: what it shows of other files, and when it is offered. */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { type ChatRequest, contentText, type ScriptedModel } from "../support/model.ts";
import { modelProjectEach, type ProjectSandbox, runLembas } from "../support/run.ts";
import { trustIn } from "../support/trust.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
modelProjectEach((made) => ({ box, model } = made));

const FAKE = resolve(import.meta.dir, "../support/fake-lsp.ts");

/** config.yaml with the test connection and the fake server for *.fake files; the project trusted. */
function withServer(extra = "", trusted = true): void {
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\nlsp:\n  fake:\n    command: ${process.execPath}\n    args: ${JSON.stringify([FAKE, "ok"])}\n    extensions: [fake]\n${extra}`);
  if (trusted) trustIn(box, box.project);
}

const run = (args: string[] = ["--yes"]) => runLembas(box, ["run", ...args, "look it up"], { cwd: box.project, env: { LEMBAS_TEST_LSP_WAIT_MS: "10000", LEMBAS_TEST_LSP_START_MS: "30000" }, timeoutMs: 120_000 });
const lsp = (operation: string, path: string, line?: number) => step({ toolCalls: [{ name: "lsp", arguments: { operation, path, ...(line ? { line, col: 1 } : {}) } }] });
const offered = (body: ChatRequest | undefined) => (body?.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);
const firstStep = () => model.requests.find((r) => isStep(r.body))?.body;
const toolResults = () => (model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? []).filter((m) => m.role === "tool").map((m) => contentText(m.content));

describe("the lsp tool", () => {
  test("a definition or hover in a protected file shows its place, never its text; an ordinary file's line is shown", async () => {
    withServer("protected:\n  - \"*.secret\"\n");
    writeFileSync(join(box.project, ".env.fake"), 'TOKEN = "sk-SECRET123"\n');
    writeFileSync(join(box.project, "keys.secret"), 'KEY = "sk-OTHER456"\n');
    writeFileSync(join(box.project, "util.fake"), "function add()\n");
    writeFileSync(join(box.project, "app.fake"), "use ->.env.fake\nuse ->keys.secret\nuse ->util.fake\n");
    // A write first: the server runs, whenever the tool is offered.
    model.push(step({ toolCalls: [{ name: "write", arguments: { path: "b.fake", content: "x\n" } }] }), lsp("definition", "app.fake", 1), lsp("hover", "app.fake", 1), lsp("definition", "app.fake", 2), lsp("definition", "app.fake", 3), lsp("hover", "app.fake", 3), step({ text: "done" }));
    const result = await run();
    expect(result.code).toBe(0);
    const [, secret, hover, guarded, plain, plainHover] = toolResults();
    expect(secret).toBe(".env.fake:1:1  (a secret file: its text is left out; read it to see it)");
    expect(hover).toBe("The symbol at app.fake:1:1 is defined in .env.fake:1:1 (a secret file): its hover is left out. Read that file to see it (read asks first).");
    expect(guarded).toBe("keys.secret:1:1  (a protected file: its text is left out; read it to see it)");
    expect(plain).toBe("util.fake:1:1  function add()");
    expect(plainHover).toBe("function add()");
    expect(toolResults().join("\n")).not.toContain("sk-");
  });

  test("offered from the first step where the project has files an installed server handles; its first call starts it, in plan mode too", async () => {
    withServer();
    writeFileSync(join(box.project, "util.fake"), "function add()\n");
    writeFileSync(join(box.project, "app.fake"), "use ->util.fake\n");
    model.push(lsp("definition", "app.fake", 1), step({ text: "done" }));
    const result = await run(["--mode", "plan"]);
    expect(result.code).toBe(0);
    expect(offered(firstStep())).toContain("lsp");
    expect(toolResults()).toEqual(["util.fake:1:1  function add()"]);
  });

  test("not offered where no installed server handles the project's files, nor in a project that is not trusted", async () => {
    withServer();
    writeFileSync(join(box.project, "notes.txt"), "nothing for a server\n");
    model.push(step({ text: "done" }));
    expect((await run()).code).toBe(0);
    expect(offered(firstStep())).not.toContain("lsp");
    expect(offered(firstStep())).toContain("read");

    model.requests.length = 0;
    writeFileSync(join(box.project, "app.fake"), "x\n");
    withServer("", false);
    expect((await runLembas(box, ["untrust", "."], { cwd: box.project })).code).toBe(0);
    model.push(step({ text: "done" }));
    expect((await run()).code).toBe(0);
    expect(offered(firstStep())).not.toContain("lsp");
  });
});
