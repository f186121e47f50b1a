import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { type ChatRequest, contentText, type ScriptedModel } from "../support/model.ts";
import { afterHeader, modelProjectEach, type ProjectSandbox, ROOT, runLembas } from "../support/run.ts";
import { trustIn } from "../support/trust.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
modelProjectEach((made) => ({ box, model } = made));

const UTIL = "export function add(a: number, b: number): number {\n  return a + b;\n}\n";
const APP = 'import { add } from "./util";\nconst x: number = add(1, 2);\nconsole.log(x);\n';

/**
 * The project's compiler options: ES5's library alone, no DOM's and no later edition's, and
 * `console` declared beside it. Without a tsconfig.json tsserver loads 77 files (the DOM's
 * library, 1.9 MB, the most of them) before its first diagnostics; with it, 5.
 */
const TSCONFIG = JSON.stringify({ compilerOptions: { lib: ["es5"], types: [] } });
const GLOBALS = "declare const console: { log(...data: unknown[]): void };\n";

/**
 * A trusted TypeScript project, and lembas run in it with the real typescript-language-server of
 * the dev dependencies on PATH (its tsserver: TypeScript 5's, installed as typescript5).
 */
function tsProject(): void {
  writeFileSync(join(box.project, "tsconfig.json"), TSCONFIG);
  writeFileSync(join(box.project, "globals.d.ts"), GLOBALS);
  writeFileSync(join(box.project, "util.ts"), UTIL);
  writeFileSync(join(box.project, "app.ts"), APP);
  trustIn(box, box.project);
}

/**
 * WAIT_MS: how long an edit waits for its diagnostics, a started server three times that. A machine
 * this loaded may take seconds to start tsserver: the waits are long, never reached when it answers.
 */
const run = () =>
  runLembas(box, ["run", "--yes", "change it"], {
    cwd: box.project,
    env: { PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}`, LEMBAS_TEST_LSP_WAIT_MS: "40000" },
    timeoutMs: 400_000,
  });

const steps = () => model.requests.filter((r) => isStep(r.body)).map((r) => r.body);
const toolResults = () => (steps().at(-1)?.messages ?? []).filter((m) => m.role === "tool").map((m) => contentText(m.content));
const offered = (body: ChatRequest | undefined) => (body?.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);

const edit = (old_string: string, new_string: string) => step({ toolCalls: [{ name: "edit", arguments: { path: "app.ts", old_string, new_string } }] });

describe("typescript-language-server", () => {
  test("an edit that brings in a type error gets it with its line, the fix reports none, and lsp finds an imported function's definition", async () => {
    tsProject();
    let tsservers: number | null = null;
    // Counted when the model hears of the fix, the server's project long loaded.
    const countTsservers = (body: ChatRequest) => {
      if (!isStep(body)) return false;
      tsservers ??= tsserversOf(realpathSync(box.project));
      return true;
    };
    model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "app.ts" } }] }),
      edit("const x: number", "const x: string"),
      edit("const x: string", "const x: number"),
      { ...step({ toolCalls: [{ name: "lsp", arguments: { operation: "definition", path: "app.ts", line: 2, col: 19 } }] }), match: countTsservers },
      step({ toolCalls: [{ name: "lsp", arguments: { operation: "references", path: "util.ts", line: 1, col: 17 } }] }),
      step({ toolCalls: [{ name: "lsp", arguments: { operation: "hover", path: "app.ts", line: 2, col: 19 } }] }),
      step({ toolCalls: [{ name: "lsp", arguments: { operation: "symbols", path: "util.ts" } }] }),
      step({ text: "done" }),
    );
    // The turn's line asks again of app.ts, clean as before: tsserver is asked, and answers at once
    // (typescript-language-server would publish nothing for a file that stays clean).
    const result = await run();
    expect(result.code).toBe(0);
    // One tsserver loads the project, no syntax server beside it.
    expect<number | null>(tsservers).toBe(1);
    const [, broken, fixed, definition, references, hover, symbols] = toolResults();
    expect(broken).toContain("The language server reports in app.ts now:\nnew:\napp.ts:2:7 error Type 'number' is not assignable to type 'string'.");
    expect(fixed).toStartWith("Edited app.ts (1 replacement):");
    expect(fixed).not.toContain("language server");
    expect(definition).toBe("util.ts:1:17  export function add(a: number, b: number): number {");
    expect(references?.split("\n").sort()).toEqual(["app.ts:1:10  import { add } from \"./util\";", "app.ts:2:19  const x: number = add(1, 2);", "util.ts:1:17  export function add(a: number, b: number): number {"]);
    expect(hover).toContain("(alias) add(a: number, b: number): number");
    expect(symbols).toBe("function add util.ts:1:17");
    // Offered from the first step: the project has TypeScript files and the server is installed.
    expect(offered(steps()[0])).toContain("lsp");
    // The turn's last edit left no error: its summary says nothing.
    expect(afterHeader(result.stderr)).not.toContain("error in app.ts");
  }, 450_000);

  test("a server killed mid-session is started again: the next edit gets its error all the same", async () => {
    tsProject();
    let killed: number | null = null;
    // Killed when the model hears of the first edit, before it asks for the second.
    const killFirst = (body: ChatRequest) => {
      if (!isStep(body)) return false;
      killed ??= killServer(realpathSync(box.project));
      return true;
    };
    model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "app.ts" } }] }),
      edit("const x: number", "const x: string"),
      { ...edit("console.log(x);", "console.log(x.nope);"), match: killFirst },
      step({ text: "done" }),
    );
    const result = await run();
    expect(result.code).toBe(0);
    expect(killed).not.toBeNull();
    const [, first, second] = toolResults();
    expect(first).toContain("app.ts:2:7 error");
    expect(second).toContain("app.ts:2:7 error");
    expect(second).toContain("app.ts:3:15 error Property 'nope' does not exist on type 'string'.");
    expect(afterHeader(result.stderr)).toContain("lembas: 2 errors in app.ts");
    expect(afterHeader(result.stderr)).not.toContain("leaves it off");
  }, 450_000);
});

/** How many tsservers run in the project (typescript-language-server starts them there). */
function tsserversOf(project: string): number {
  return readdirSync("/proc").filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("tsserver.js") && readlinkSync(`/proc/${pid}/cwd`) === project;
    } catch {
      return false;
    }
  }).length;
}

/** Kills the typescript-language-server whose working directory is the project; its pid. */
function killServer(project: string): number {
  const pid = serverPid(project);
  process.kill(pid, "SIGKILL");
  return pid;
}

/** The typescript-language-server whose working directory is the project. */
function serverPid(project: string): number {
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!cmdline.includes("typescript-language-server") || cmdline.startsWith("bwrap") || readlinkSync(`/proc/${pid}/cwd`) !== project) continue;
      return Number(pid);
    } catch {
      // gone, or not ours to read
    }
  }
  throw new Error(`no typescript-language-server runs in ${project}`);
}
