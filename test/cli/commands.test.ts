import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { listSessions } from "../../src/store/sessions.ts";
import { projectSandbox, runLembas, type Sandbox } from "../support/run.ts";

let box: Sandbox & { project: string };
beforeEach(() => {
  box = projectSandbox("http://127.0.0.1:9/v1");
});
afterEach(() => box.cleanup());

function sessionCount(): number {
  const file = join(box.stateDir, "lembas.db");
  if (!existsSync(file)) return 0;
  const db = openDb(file);
  const count = listSessions(db).length;
  db.close();
  return count;
}

/** One line on stderr, exit 2. */
function expectRefused(result: { code: number; stderr: string }, line: string): void {
  expect(result.code).toBe(2);
  expect(result.stderr.trim().split("\n")).toEqual([line]);
}

describe("unknown options", () => {
  test("run --modle x hi is refused with the nearest option, and makes no session", async () => {
    const result = await runLembas(box, ["run", "--modle", "x", "hi"], { cwd: box.project });
    expectRefused(result, "lembas: unknown option --modle (did you mean --model?) (lembas run --help lists them)");
    expect(sessionCount()).toBe(0);
  });

  test("a nested command's unknown option names its own options", async () => {
    const result = await runLembas(box, ["sessions", "prune", "--older", "7d"]);
    expectRefused(result, "lembas: unknown option --older (lembas sessions prune --help lists them)");
    const near = await runLembas(box, ["sessions", "prune", "--older-tahn", "7d"]);
    expectRefused(near, "lembas: unknown option --older-tahn (did you mean --older-than?) (lembas sessions prune --help lists them)");
  });

  test("lembas PROMPT with a mistyped option is refused the same way", async () => {
    const result = await runLembas(box, ["--modle", "x", "hi"], { cwd: box.project, stdin: "" });
    expectRefused(result, "lembas: unknown option --modle (did you mean --model?) (lembas --help lists them)");
    expect(sessionCount()).toBe(0);
  });

  test("an option without its value, a value given to a flag, a word too many", async () => {
    expectRefused(await runLembas(box, ["run", "hi", "--model"]), "lembas: --model needs a value");
    expectRefused(await runLembas(box, ["run", "--model", "--yes", "hi"]), "lembas: --model needs a value");
    expectRefused(await runLembas(box, ["run", "--yes=1", "hi"]), "lembas: --yes takes no value");
    expectRefused(await runLembas(box, ["config", "get", "mode", "effort"]), 'lembas: lembas config get takes no argument "effort" (lembas config get --help says what it takes)');
    expectRefused(await runLembas(box, ["config", "set", "mode"]), "lembas: lembas config set needs VALUE (lembas config set --help says more)");
  });

  test("a value that starts with a dash is told to go after --, and does there", async () => {
    expectRefused(await runLembas(box, ["config", "set", "instructions", "-be terse"]), 'lembas: "-be terse" is read as options: put -- before a value that starts with a dash');
    expect(await runLembas(box, ["config", "set", "instructions", "--", "-be terse"])).toMatchObject({ code: 0, stdout: "instructions = -be terse\n" });
  });

  test("a mistyped nested command gets the nearest one", async () => {
    expectRefused(await runLembas(box, ["sessions", "lsit"]), "lembas: there is no command lembas sessions lsit (did you mean list?): lembas sessions --help lists them");
    expectRefused(await runLembas(box, ["config"]), "lembas: lembas config needs a command: path, get, set, unset, edit (lembas config --help says more)");
  });

  test("run's prompt may be several words", async () => {
    // Unreachable model: the run fails at the model, after taking both words as the prompt (its
    // retries 0.05 s apart, not 1 s).
    const result = await runLembas(box, ["run", "--format", "json", "say", "hi"], { cwd: box.project, env: { LEMBAS_LOCAL_PORTS: "1", LEMBAS_TEST_RETRY_BASE_MS: "50" } });
    expect(result.stderr).not.toContain("takes no argument");
  });
});

describe("help", () => {
  test("a nested command's --help is its own page, with its options and an example", async () => {
    const result = await runLembas(box, ["sessions", "prune", "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith("Usage: lembas sessions prune [options]\n");
    expect(result.stdout).toContain("--older-than AGE");
    expect(result.stdout).toContain("(default: 30d)");
    expect(result.stdout).toMatch(/Example:\n {2}lembas sessions prune --older-than \S+/);
  });

  test("every help page has an example", async () => {
    const pages = [
      [],
      ["config"], ["config", "path"], ["config", "get"], ["config", "set"], ["config", "unset"], ["config", "edit"],
      ["trust"], ["untrust"], ["run"], ["serve"], ["login"], ["logout"], ["status"], ["usage"],
      ["sessions"], ["sessions", "list"], ["sessions", "show"], ["sessions", "delete"], ["sessions", "prune"],
      ["models"], ["service"], ["service", "install"], ["service", "uninstall"], ["service", "status"], ["service", "logs"], ["doctor"], ["mcp"], ["mcp", "list"],
    ];
    for (const page of pages) {
      const result = await runLembas(box, [...page, "--help"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toStartWith(`Usage: ${["lembas", ...page].join(" ")}`);
      expect(result.stdout).toMatch(/Examples?:\n {2}lembas/);
    }
  }, 60_000);
});

describe("errors in a pipe", () => {
  test("carry no colour codes, even without NO_COLOR", async () => {
    delete box.env.NO_COLOR;
    const result = await runLembas(box, ["config", "sett", "mode", "plan"]);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain("\x1b");
    expect(result.stderr.trim()).toBe("lembas: there is no command lembas config sett (did you mean set?): lembas config --help lists them");
    const help = await runLembas(box, ["run", "--help"]);
    expect(help.stdout).not.toContain("\x1b");
  });
});
