import { afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { contentText, type ScriptedModel, startModel } from "../support/model.ts";
import { ensureAcpx } from "../support/acpx.ts";
import { LEMBAS, projectSandbox, type Sandbox } from "../support/run.ts";

// acpx (npm, pinned 0.19.1) is a real ACP client from outside this project: what it can do with
// `lembas serve --stdio`, an editor can.
let ACPX = "";
beforeAll(async () => {
  ACPX = await ensureAcpx();
}, 180_000);

let box: Sandbox;
let model: ScriptedModel;
let project: string;
beforeEach(async () => {
  model = await startModel();
  box = projectSandbox(model.url);
  project = join(box.dir, "project");
});
afterEach(async () => {
  await model.close();
  box.cleanup();
});

async function acpx(args: string[]) {
  const proc = Bun.spawn([process.execPath, ACPX, "--agent", `${LEMBAS.join(" ")} serve --stdio`, "--ttl", "3", "--cwd", project, ...args], {
    env: box.env,
    cwd: project,
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe("acpx drives lembas serve --stdio", () => {
  test("a turn that writes a file, shown with its diff", async () => {
    model.push(step({ toolCalls: [{ name: "write", arguments: { path: "notes.md", content: "one\ntwo\n" } }] }), step({ text: "Wrote notes.md." }));
    const result = await acpx(["--approve-all", "exec", "write notes.md"]);
    expect(result.code).toBe(0);
    expect(readFileSync(join(project, "notes.md"), "utf8")).toBe("one\ntwo\n");
    expect(result.stdout).toContain("Write notes.md (completed)");
    expect(result.stdout).toContain("diff");
    expect(result.stdout).toContain("Wrote notes.md.");
    expect(result.stdout).toContain("[done] end_turn");
  });

  test("a denied command is not run", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }), step({ text: "It was denied." }));
    const result = await acpx(["--deny-all", "exec", "make a file"]);
    expect(result.code).toBe(5); // acpx's exit code for "a permission was denied"
    expect(existsSync(join(project, "made.txt"))).toBe(false);
    expect(result.stdout).toContain("[tool] Run touch made.txt (failed)");
    expect(result.stdout).toContain("It was denied.");
  });

  test("set-mode plan: the next prompt runs in plan mode", async () => {
    expect((await acpx(["sessions", "new"])).code).toBe(0);
    const mode = await acpx(["set-mode", "plan"]);
    expect(mode.stdout).toContain("mode set: plan");
    model.push(step({ text: "Here is a plan." }));
    const result = await acpx(["--approve-all", "prompt", "plan it"]);
    expect(result.stdout).toContain("Here is a plan.");
    const messages = model.requests.findLast((r) => isStep(r.body))?.body.messages ?? [];
    expect(contentText(messages.findLast((m) => m.role === "user")?.content)).toStartWith("plan it\n\n[lembas] The session is in plan mode:");
  });

  test("cancel: a running prompt ends cancelled", async () => {
    expect((await acpx(["sessions", "new"])).code).toBe(0);
    // The reply's first word comes at once, the rest not before the test has its answer.
    let release = () => {};
    const hold = new Promise<void>((resolve) => (release = resolve));
    model.push(step({ text: Array.from({ length: 60 }, (_, i) => `w${i} `), hold }));
    const running = acpx(["--approve-all", "prompt", "talk"]);
    // Cancel once the turn is really under way: the model has been asked.
    const deadline = Date.now() + 20_000;
    while (!model.requests.some((r) => isStep(r.body)) && Date.now() < deadline) await Bun.sleep(50);
    await Bun.sleep(300);
    expect((await acpx(["cancel"])).stdout).toContain("cancel requested");
    const result = await running.finally(release);
    expect(result.stdout).toContain("[done] cancelled");
    expect(result.stdout).not.toContain("w59");
  });
});
