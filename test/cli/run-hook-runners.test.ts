import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import { afterHeader, modelProjectEach, type ProjectSandbox, runInProject, runLembas } from "../support/run.ts";
import { trustIn } from "../support/trust.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
modelProjectEach((made) => ({ box, model } = made));

const lembas = (args: string[]) => runLembas(box, args, { cwd: box.project });
const ASKS = "you have not approved them and the project files they run as they read now";

/**
 * A trusted project whose approved `.agent/settings.json` runs COMMAND after every write or edit,
 * with FILES (project path → content) written before the approval; the approval's output.
 */
async function approvedHook(command: string, files: Record<string, string>): Promise<string> {
  mkdirSync(join(box.project, ".agent"), { recursive: true });
  writeFileSync(join(box.project, ".agent/settings.json"), JSON.stringify({ hooks: { PostToolUse: [{ matcher: "write|edit", hooks: [{ type: "command", command }] }] } }));
  for (const [path, content] of Object.entries(files)) writeFileSync(join(box.project, path), content);
  trustIn(box, box.project);
  const approved = await lembas(["hooks", "approve", "--yes"]);
  expect(approved.code).toBe(0);
  return approved.stdout;
}

/** A package.json whose `check` script leaves MARK (in the sandbox, outside the project). */
const packageJson = (mark: string) => `${JSON.stringify({ scripts: { check: `echo ran > ${mark}` } })}\n`;
/** A Makefile whose `check` target leaves MARK. */
const makefile = (mark: string) => `check:\n\techo ran > ${mark}\n`;

describe("an approved hook that runs a runner's script", () => {
  test("bun run check: the model rewrites package.json's script in edit mode, and the hook does not run it, said with how to approve", async () => {
    const approved = await approvedHook("bun run check", { "package.json": packageJson(join(box.dir, "approved-ran")) });
    expect(approved).toContain("and these project files, as they read now: package.json");
    const pwned = join(box.dir, "pwned-by-hook");
    model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "package.json" } }] }),
      step({ toolCalls: [{ name: "write", arguments: { path: "package.json", content: packageJson(pwned) } }] }),
      step({ text: "ok" }),
    );
    const result = await runInProject(box, ["--mode", "edit", "go"]);
    expect(result.code).toBe(0);
    expect(readFileSync(join(box.project, "package.json"), "utf8")).toBe(packageJson(pwned));
    expect(existsSync(pwned)).toBe(false);
    expect(afterHeader(result.stderr)).toContain(`${ASKS} (lembas hooks lists them; lembas hooks approve, in ${box.project}, runs them)`);
    expect((await lembas(["hooks"])).stdout).toContain("not run: not approved as it reads now");
  });

  test("bun run check with package.json as approved runs the hook without asking", async () => {
    const mark = join(box.dir, "approved-ran");
    await approvedHook("bun run check", { "package.json": packageJson(mark) });
    model.push(step({ toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "a\n" } }] }), step({ text: "ok" }));
    const result = await runInProject(box, ["--mode", "edit", "go"]);
    expect(result.code).toBe(0);
    expect(readFileSync(mark, "utf8")).toBe("ran\n");
    expect(result.stderr).not.toContain("not approved");
  });

  test("make check: a rewritten Makefile, and a GNUmakefile make would read first, do not run", async () => {
    const approved = await approvedHook("make check", { Makefile: makefile(join(box.dir, "approved-ran")) });
    expect(approved).toContain("and these project files, as they read now: Makefile");
    const rewritten = join(box.dir, "pwned-by-makefile");
    const added = join(box.dir, "pwned-by-gnumakefile");
    model.push(
      step({ toolCalls: [{ name: "write", arguments: { path: "GNUmakefile", content: makefile(added) } }] }),
      step({ toolCalls: [{ name: "read", arguments: { path: "Makefile" } }] }),
      step({ toolCalls: [{ name: "edit", arguments: { path: "Makefile", old_string: join(box.dir, "approved-ran"), new_string: rewritten } }] }),
      step({ text: "ok" }),
    );
    const result = await runInProject(box, ["--mode", "edit", "go"]);
    expect(result.code).toBe(0);
    expect(readFileSync(join(box.project, "Makefile"), "utf8")).toBe(makefile(rewritten));
    expect(existsSync(added)).toBe(false);
    expect(existsSync(rewritten)).toBe(false);
    expect(afterHeader(result.stderr)).toContain(ASKS);
  });

  test("make check with the Makefile as approved runs the hook without asking", async () => {
    const mark = join(box.dir, "approved-ran");
    await approvedHook("make check", { Makefile: makefile(mark) });
    model.push(step({ toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "a\n" } }] }), step({ text: "ok" }));
    const result = await runInProject(box, ["--mode", "edit", "go"]);
    expect(result.code).toBe(0);
    expect(readFileSync(mark, "utf8")).toBe("ran\n");
    expect(result.stderr).not.toContain("not approved");
  });
});
