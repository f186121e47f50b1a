import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runHook } from "../../src/engine/hook-run.ts";
import { bashTool } from "../../src/tools/bash.ts";
import { Jobs } from "../../src/tools/jobs.ts";
import { killSleeps, sleepsWith, uniqueSleep, waitUntil } from "../support/procs.ts";
import { bwrapSandbox, tool } from "../support/tools.ts";
import { cleanupTempDirs, makeContext, run, tempDir } from "./context.ts";

afterAll(cleanupTempDirs);

const bwrap = bwrapSandbox("the tests of a command that takes its sandbox's PID 1 over");
const perl = tool("perl", "perl", "the tests of a command that takes its sandbox's PID 1 over");
const x64 = process.arch === "x64";
if (!x64) console.warn("SKIPPED: the tests of a command that takes its sandbox's PID 1 over trace it with x86-64's registers.");

/**
 * What a command may do to its sandbox's PID 1 (bwrap's init, no capabilities, the same user):
 * clear the mark in its environment (a write to /proc/1/mem), and trace it to make it run
 * setsid() in place of the wait4() it is blocked in (glibc's wait then returns the new session's
 * id, which bwrap's loop takes for a child and waits again). PID 1 then is in no group lembas
 * stops and carries no mark: nothing but knowing its pid for certain reaches the sandbox.
 */
const TAKE_OVER_PID1 = `use strict;
my $daemon = "sleep\\0$ARGV[0]\\0";
sub running { for my $f (glob "/proc/[0-9]*/cmdline") { open(my $c, "<", $f) or next; local $/; return 1 if <$c> eq $daemon } 0 }
select(undef, undef, undef, 0.01) until running();
sub pt { my $r = syscall(101, $_[0], 1, $_[1], $_[2]); die "ptrace $_[0]: $!" if $r == -1; $r }
open(my $st, "<", "/proc/1/stat") or die "stat: $!"; my $s = <$st>; $s =~ s/^.*\\) //s; my @f = split / /, $s;
open(my $e, "<", "/proc/1/environ") or die "environ: $!"; my $env = do { local $/; <$e> };
my $at = index($env, "LEMBAS_RUN=");
if ($at >= 0) { open(my $m, "+<", "/proc/1/mem") or die "mem: $!"; sysseek($m, $f[47] + $at, 0) or die "seek: $!"; syswrite($m, "X") == 1 or die "write: $!"; }
pt(16, 0, 0); waitpid(1, 0);
my $regs = "\\0" x 216; pt(12, 0, $regs);
my @r = unpack("q27", $regs);
die "PID 1 is not in wait4 ($r[15])" unless $r[15] == 61;
$r[10] = 112; $r[15] = -1; $r[16] -= 2;
my $set = pack("q27", @r); pt(13, 0, $set); pt(17, 0, 0);
select(undef, undef, undef, 0.01) while getpgrp(1) != 1;
print "taken over\\n";
`;

/** A project holding the script, a state dir beside it hidden from the commands. */
function sandboxed(jobs?: Jobs) {
  const dir = tempDir();
  const root = join(dir, "project");
  const state = join(dir, "state");
  mkdirSync(root);
  mkdirSync(state);
  writeFileSync(join(root, "take-over.pl"), TAKE_OVER_PID1);
  return { root, state, ...makeContext({ root, hidden: [state], ...(jobs ? { jobs } : {}) }) };
}

/** A daemon out of the command's group and without its mark, then (once it runs) PID 1 taken over. */
function attack(marker: string, then = ""): string {
  return `(setsid env -i sleep ${marker} </dev/null >/dev/null 2>&1 &); perl take-over.pl ${marker}${then}`;
}

const markers: string[] = [];
function marker(): string {
  const made = uniqueSleep();
  markers.push(made);
  return made;
}
const registries: Jobs[] = [];
afterEach(async () => {
  await Promise.all(registries.splice(0).map((jobs) => jobs.stopAll()));
  killSleeps(...markers.splice(0));
});

const gone = (daemon: string) => waitUntil(() => sleepsWith(daemon).length === 0, 6_000);

const SRC = join(import.meta.dir, "../../src/tools");

/** A process running one bash call in the sandbox with the real modules, its output on stdout: a lembas to kill mid-command. */
function lembasRunning(root: string, state: string, command: string): Bun.Subprocess<"ignore", "pipe", "inherit"> {
  const script = join(root, "..", "one-call.ts");
  writeFileSync(
    script,
    `import { runCommand } from ${JSON.stringify(join(SRC, "bash.ts"))};
import { planFor } from ${JSON.stringify(join(SRC, "sandbox.ts"))};
const [root, state, command] = process.argv.slice(2);
await runCommand(command, { cwd: root, env: process.env, plan: planFor([state], root), signal: new AbortController().signal, timeoutMs: 60_000, onOutput: (text) => process.stdout.write(text) });
`,
  );
  return Bun.spawn([process.execPath, script, root, state, command], { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
}

describe.skipIf(!bwrap || !perl || !x64)("a command that takes its sandbox's PID 1 over (out of its group, its mark cleared) does not outlive its call", () => {
  test("a bash call that ends: the daemon it started is stopped with it", async () => {
    const { ctx } = sandboxed();
    const daemon = marker();
    const result = await run(bashTool, { command: attack(daemon) }, ctx);
    expect(result.output).toStartWith("taken over");
    expect(result.output).toContain("Processes it left running in the background were stopped");
    expect(await gone(daemon)).toBe(true);
  });

  test("a bash call that is cancelled", async () => {
    const abort = new AbortController();
    const dir = sandboxed();
    const { ctx, rec } = makeContext({ root: dir.root, hidden: [dir.state], signal: abort.signal });
    const daemon = marker();
    const call = run(bashTool, { command: attack(daemon, "; sleep 60") }, ctx);
    expect(await waitUntil(() => rec.progress.join("").includes("taken over"))).toBe(true);
    abort.abort();
    expect((await call).output).toContain("The command was cancelled");
    expect(await gone(daemon)).toBe(true);
  });

  test("a bash call that times out", async () => {
    const { ctx } = sandboxed();
    const daemon = marker();
    const result = await run(bashTool, { command: attack(daemon, "; sleep 60"), timeout: 5_000 }, ctx);
    expect(result.output).toStartWith("taken over");
    expect(result.output).toContain("The command timed out");
    expect(await gone(daemon)).toBe(true);
  });

  test("a background job that ends, and one that is stopped", async () => {
    const jobs = new Jobs();
    registries.push(jobs);
    const { ctx } = sandboxed(jobs);
    const ended = marker();
    await run(bashTool, { command: attack(ended), run_in_background: true }, ctx);
    await ctx.jobs.get("job1")?.done;
    expect(ctx.jobs.get("job1")?.read(0, 1000).text).toStartWith("taken over");
    expect(await gone(ended)).toBe(true);

    const stopped = marker();
    await run(bashTool, { command: attack(stopped, "; sleep 60"), run_in_background: true }, ctx);
    const job = ctx.jobs.get("job2");
    expect(await waitUntil(() => (job?.read(0, 1000).text ?? "").includes("taken over"))).toBe(true);
    await job?.stop();
    expect(await gone(stopped)).toBe(true);
  });

  test("a lembas killed mid-command (SIGKILL): its watchdog kills the sandbox", async () => {
    const { root, state } = sandboxed();
    const daemon = marker();
    const lembas = lembasRunning(root, state, attack(daemon, "; sleep 60"));
    try {
      let said = "";
      const reader = lembas.stdout.getReader();
      while (!said.includes("taken over")) {
        const { done, value } = await reader.read();
        if (done) break;
        said += new TextDecoder().decode(value);
      }
      expect(said).toContain("taken over");
      lembas.kill("SIGKILL");
      expect(await gone(daemon)).toBe(true);
    } finally {
      lembas.kill("SIGKILL");
    }
  });

  test("a hook", async () => {
    const { root, state } = sandboxed();
    const daemon = marker();
    const hook = await runHook({ command: attack(daemon), input: "{}", cwd: root, root, setup: { env: { ...process.env } as Record<string, string>, hidden: [state] }, env: {}, timeoutMs: 30_000, signal: new AbortController().signal });
    expect(hook.stdout).toStartWith("taken over");
    expect(await gone(daemon)).toBe(true);
  });
});
