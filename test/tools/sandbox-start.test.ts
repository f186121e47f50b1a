import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { bashTool } from "../../src/tools/bash.ts";
import { planFor } from "../../src/tools/sandbox.ts";
import { bwrapSandbox } from "../support/tools.ts";
import { cleanupTempDirs, makeContext, run, tempDir } from "./context.ts";

afterAll(cleanupTempDirs);

const bwrap = bwrapSandbox("the tests of how a sandboxed command starts and ends");

/** A project, and a state dir beside it hidden from the commands. */
function sandboxed() {
  const dir = tempDir();
  const root = join(dir, "project");
  const state = join(dir, "state");
  mkdirSync(root);
  mkdirSync(state);
  return { root, state, ...makeContext({ root, hidden: [state] }) };
}

/** Whether a live process runs `sleep MARKER`. */
function sleeping(marker: string): boolean {
  return readdirSync("/proc").some((entry) => {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      return readFileSync(`/proc/${entry}/cmdline`, "utf8") === `sleep\0${marker}\0` && !/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
    } catch {
      return false;
    }
  });
}

async function waitUntil(check: () => boolean, ms = 3_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await Bun.sleep(20);
  }
  return check();
}

describe.skipIf(!bwrap)("how a command starts and ends in the bwrap sandbox", () => {
  test("lembas starts bwrap itself, with no shell of its own around it: the only shell is the command's", () => {
    const { root, state } = sandboxed();
    const plan = planFor([state], root);
    if (plan.kind === "none") throw new Error(plan.why);
    const { argv, outputFd } = plan.script(["/bin/sh", "-c"], "echo hi", root);
    expect(argv[0]).toBe(Bun.which("bwrap") ?? "");
    expect(argv.filter((arg) => arg === "/bin/sh")).toEqual(["/bin/sh"]);
    expect(argv.at(-1)).toEndWith("\necho hi");
    expect(outputFd).toBe(3);
  });

  test("the pipe each command's output came through is closed once read: lembas keeps no descriptor per command", async () => {
    const { ctx } = sandboxed();
    const open = () => readdirSync("/proc/self/fd").length;
    await run(bashTool, { command: "echo warm" }, ctx);
    const before = open();
    for (let i = 0; i < 5; i++) expect((await run(bashTool, { command: `echo ${i}` }, ctx)).output).toBe(String(i));
    // A stderr pipe given up on while a sandbox winds down is Bun's to close (at its end, or when collected).
    const settled = () => {
      Bun.gc(true);
      return open() <= before;
    };
    expect(await waitUntil(settled)).toBe(true);
  });

  test("a background process that left its group and every output is still found and stopped when the command ends", async () => {
    const { ctx } = sandboxed();
    const marker = `1000.${Math.floor(Math.random() * 1e6)}`;
    const result = await run(bashTool, { command: `setsid sleep ${marker} </dev/null >/dev/null 2>&1 & echo started` }, ctx);
    expect(result.output).toStartWith("started\n\nProcesses it left running in the background were stopped");
    expect(await waitUntil(() => !sleeping(marker))).toBe(true);
  });
});
