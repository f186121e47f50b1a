import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bashTool } from "../../src/tools/bash.ts";
import { findSandbox, planFor, seatbeltProfile } from "../../src/tools/sandbox.ts";
import { cleanupTempDirs, makeContext, run, tempDir } from "./context.ts";

afterAll(cleanupTempDirs);

const found = findSandbox();
const bwrap = found.kind === "bwrap";
if (!bwrap) console.warn(`SKIPPED: the bwrap sandbox tests need bubblewrap, and here ${found.kind === "none" ? found.why : `the sandbox is ${found.kind}`}`);

/** A project, and a state dir beside it (outside it) holding a secret, hidden from the commands. */
function sandboxed(opts: { signal?: AbortSignal } = {}) {
  const dir = tempDir();
  const root = join(dir, "project");
  const state = join(dir, "state");
  mkdirSync(root);
  mkdirSync(state);
  writeFileSync(join(state, "lembas.db"), "the-device-token");
  return { dir, root, state, ...makeContext({ root, hidden: [state], ...(opts.signal ? { signal: opts.signal } : {}) }) };
}

/** The pids (as this process sees them) of the processes that are `sleep MARKER`. */
function pidsWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (cmdline === `sleep\0${marker}\0` && state !== "Z" && state !== "X") pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function waitUntil(check: () => boolean, ms = 3_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await Bun.sleep(20);
  }
  return check();
}

/** A sleep nobody else runs, found from outside the sandbox by its argument. */
const uniqueSleep = () => `1000.${Math.floor(Math.random() * 1e6)}`;

describe.skipIf(!bwrap)("bash in the bwrap sandbox", () => {
  test("the hidden dir is empty to the command and what it writes there never reaches the real one", async () => {
    const { ctx, state } = sandboxed();
    const result = await run(bashTool, { command: `cat ${state}/lembas.db; ls -A ${state}; echo mine > ${state}/x; echo listed; ls -A ${state}` }, ctx);
    expect(result.output).toBe(`cat: ${state}/lembas.db: No such file or directory\nlisted\nx`);
    expect(readdirSync(state)).toEqual(["lembas.db"]);
  });

  test("the lembas process is not in the command's /proc", async () => {
    const { ctx } = sandboxed();
    const result = await run(bashTool, { command: `ls /proc | grep -E '^[0-9]+$'; cat /proc/${process.pid}/environ` }, ctx);
    const pids = result.output.split("\n").filter((line) => /^\d+$/.test(line)).map(Number);
    expect(pids.length).toBeGreaterThan(0);
    expect(pids).not.toContain(process.pid);
    expect(Math.max(...pids)).toBeLessThan(20);
    expect(result.output).toContain(`/proc/${process.pid}/environ: No such file or directory`);
  });

  test("the command works as it would outside: cwd, the project and files outside it, /tmp, exit codes, stdout and stderr in order", async () => {
    const { ctx, root, dir } = sandboxed();
    writeFileSync(join(dir, "outside.txt"), "from outside\n");
    const tmp = join("/tmp", `lembas-sandbox-${process.pid}-${Date.now()}`);
    const command = `pwd; echo made > made.txt; cat ${dir}/outside.txt; echo t > ${tmp} && cat ${tmp} && rm ${tmp}; id -u; echo err >&2; exit 3`;
    const result = await run(bashTool, { command }, ctx);
    expect(result.output).toBe(`${root}\nfrom outside\nt\n${process.getuid?.()}\nerr\n\nExit code 3.`);
    expect(result.meta).toEqual({ exitCode: 3 });
    expect(readFileSync(join(root, "made.txt"), "utf8")).toBe("made\n");
  });

  test("on timeout the command gets SIGTERM and its grace period: what it prints while it cleans up is kept", async () => {
    const { ctx } = sandboxed();
    const command = "trap 'echo cleaning; sleep 0.3; echo cleaned; exit 0' TERM; echo started; sleep 1000 & wait";
    const result = await run(bashTool, { command, timeout: 300 }, ctx);
    expect(result.output).toStartWith("started\ncleaning\ncleaned\n\nThe command timed out after 0.3 s");
  });

  test("cancelling kills the whole group, grandchildren too", async () => {
    const controller = new AbortController();
    const { ctx } = sandboxed({ signal: controller.signal });
    const marker = uniqueSleep();
    const pending = run(bashTool, { command: `sleep ${marker} & bash -c 'sleep ${marker} & wait' & echo up; wait` }, ctx);
    expect(await waitUntil(() => pidsWith(marker).length === 2)).toBe(true);
    controller.abort();
    const result = await pending;
    expect(result.output).toContain("The command was cancelled: it and every process it started were stopped.");
    expect(await waitUntil(() => pidsWith(marker).length === 0)).toBe(true);
  });

  test("a command ignoring SIGTERM is killed after the grace period, its children too", async () => {
    const { ctx } = sandboxed();
    const marker = uniqueSleep();
    const started = Date.now();
    const result = await run(bashTool, { command: `trap '' TERM; sleep ${marker} & while true; do sleep 0.05; done`, timeout: 200 }, ctx);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(result.output).toContain("timed out after 0.2 s");
    expect(await waitUntil(() => pidsWith(marker).length === 0)).toBe(true);
  });

  test("a background process outlives the command, as outside the sandbox", async () => {
    const { ctx } = sandboxed();
    const marker = uniqueSleep();
    const result = await run(bashTool, { command: `sleep ${marker} >/dev/null 2>&1 & echo started` }, ctx);
    expect(result.output).toBe("started");
    expect(pidsWith(marker).length).toBe(1);
    for (const pid of pidsWith(marker)) process.kill(pid, "SIGKILL");
  });
});

describe("when the command runs without the sandbox", () => {
  test.skipIf(!bwrap)("a state dir inside the project is not hidden (that would hide part of the project), and that is said once", async () => {
    const root = tempDir();
    const state = join(root, ".state");
    mkdirSync(state);
    writeFileSync(join(state, "lembas.db"), "db");
    const { ctx } = makeContext({ root, hidden: [state] });
    const first = await run(bashTool, { command: "cat .state/lembas.db" }, ctx);
    expect(first.output).toBe(
      `db\n\nThis command ran without the sandbox (${state} is inside the project ${root}, so it cannot be hidden from its commands): commands can read lembas's config and state dirs.`,
    );
    expect((await run(bashTool, { command: "cat .state/lembas.db" }, ctx)).output).toBe("db");
  });

  test("a bwrap that cannot start (no user namespaces) is found broken, and commands run without it", async () => {
    const bin = tempDir();
    writeFileSync(join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
    chmodSync(join(bin, "bwrap"), 0o755);
    const broken = findSandbox({ PATH: bin, platform: "linux" });
    expect(broken).toEqual({ kind: "none", why: "bwrap could not start a sandbox (bwrap: No permissions to create new namespace)", broken: true });
    const state = tempDir();
    expect(planFor([state], tempDir(), broken)).toEqual({ kind: "none", why: broken.kind === "none" ? broken.why : "", fallback: true });
  });

  test("no bwrap at all: no sandbox, nothing said per command (lembas doctor says it)", () => {
    const none = findSandbox({ PATH: tempDir(), platform: "linux" });
    expect(none).toEqual({ kind: "none", why: "bwrap (bubblewrap) is not installed", broken: false });
    expect(planFor([tempDir()], tempDir(), none)).toMatchObject({ kind: "none", fallback: false });
  });

  test("nothing to hide: no sandbox", () => {
    expect(planFor([], tempDir())).toMatchObject({ kind: "none", fallback: false });
    expect(planFor(["/nonexistent/lembas/state"], tempDir())).toMatchObject({ kind: "none", fallback: false });
  });
});

describe("macOS: the sandbox-exec profile", () => {
  test("allows everything but reading or writing under the hidden dirs, quoting them as SBPL strings", () => {
    expect(seatbeltProfile(["/Users/me/.config/lembas", '/Users/me/odd "dir"\\x'])).toBe(
      [
        "(version 1)",
        "(allow default)",
        '(deny file-read* file-write* (subpath "/Users/me/.config/lembas") (subpath "/Users/me/odd \\"dir\\"\\\\x"))',
      ].join("\n"),
    );
    expect(seatbeltProfile([])).toBe("(version 1)\n(allow default)");
  });

  test("sandbox-exec wraps the command with that profile", () => {
    const state = tempDir();
    const plan = planFor([state], tempDir(), { kind: "sandbox-exec", path: "/usr/bin/sandbox-exec" });
    if (plan.kind === "none") throw new Error(plan.why);
    expect(plan.argv(["/bin/bash", "-c", "ls"], "/p")).toEqual(["/usr/bin/sandbox-exec", "-p", seatbeltProfile([state]), "/bin/bash", "-c", "ls"]);
  });
});
