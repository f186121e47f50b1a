// bench/engine.ts's hooks: a turn with one read call, in a session whose config has a no-op
// PreToolUse and PostToolUse hook (a shell script that exits 0), against the same turn in a
// session without hooks, alternated in one run; the difference of the medians is what the hook
// pair costs. Beside it, what its processes' own start costs: `sh -c true` twice, as it is, in
// the tools' sandbox (a hook runs there, as bash's commands do), and in a bare bwrap (`--bind / /`
// and nothing else: the floor of any bwrap sandbox). Each started as lembas starts a command or a
// hook: in a session of its own (its own process group, no terminal), which on a kernel with
// autogroups is a scheduling group of its own too, and costs as much on a loaded machine.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type EngineHarness, engineHarness, step } from "../test/support/engine.ts";
import { findSandbox, type Plan, planFor } from "../src/tools/sandbox.ts";
import { spawnScript } from "../src/tools/script-spawn.ts";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

export type HookCost = { with_hooks_ms: number; without_hooks_ms: number; hooks_extra_ms: number; sh_true_twice_ms: number; sandboxed_sh_true_twice_ms: number; bare_bwrap_sh_true_twice_ms: number };

async function turnMs(h: EngineHarness, session: Awaited<ReturnType<EngineHarness["session"]>>): Promise<number> {
  h.model.push(step({ toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] }), step({ text: "done" }));
  const started = performance.now();
  await session.prompt({ text: "read it" });
  return performance.now() - started;
}

/** `sh -c true` twice, one after the other, in ARGV's wrapping (with fd 3, where the sandbox's script writes its output). */
async function twice(wrap: (argv: string[]) => string[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < 2; i++) await Bun.spawn(wrap(["/bin/sh", "-c", "true"]), { detached: true, stdio: ["ignore", "ignore", "ignore", "ignore"] }).exited;
  return performance.now() - started;
}

/**
 * `sh -c true` twice in the tools' sandbox, started as bash and the hooks start their shell
 * (script-spawn.ts: the output on fd 3, bwrap's PID 1 held by a pidfd before the command runs).
 */
async function twiceScripted(plan: Plan, cwd: string): Promise<number> {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const started = performance.now();
  for (let i = 0; i < 2; i++) {
    const run = spawnScript(["/bin/sh", "-c"], "true", { cwd, env, plan, stdin: "ignore" });
    await run.proc.exited;
    (await run.init)?.close();
    void run.stdout.cancel();
  }
  return performance.now() - started;
}

export async function hookCost(runs: number): Promise<HookCost> {
  const plain = await engineHarness({ checkEvents: false });
  const script = join(plain.box.dir, "noop-hook.sh");
  writeFileSync(script, "#!/bin/sh\nexit 0\n");
  chmodSync(script, 0o755);
  const noop = [{ hooks: [{ type: "command", command: script }] }];
  const hooked = await engineHarness({ checkEvents: false, config: { hooks: { PreToolUse: noop, PostToolUse: noop } } });
  try {
    for (const h of [plain, hooked]) writeFileSync(join(h.project, "notes.txt"), "a few words\n");
    const [a, b] = [await plain.session(), await hooked.session()];
    const without: number[] = [];
    const withHooks: number[] = [];
    const sh: number[] = [];
    const boxed: number[] = [];
    const bare: number[] = [];
    const tool = findSandbox();
    const plan = planFor([plain.box.configDir, plain.box.stateDir], plain.project, tool);
    for (let i = 0; i <= runs; i++) {
      const t = [
        await turnMs(plain, a),
        await turnMs(hooked, b),
        await twice((argv) => argv),
        await twiceScripted(plan, plain.project),
        await twice((argv) => (tool.kind === "bwrap" ? [tool.path, "--bind", "/", "/", "--", ...argv] : argv)),
      ];
      // The first round warms every path up.
      if (i === 0) continue;
      without.push(t[0] ?? NaN);
      withHooks.push(t[1] ?? NaN);
      sh.push(t[2] ?? NaN);
      boxed.push(t[3] ?? NaN);
      bare.push(t[4] ?? NaN);
    }
    const round = (x: number) => Math.round(x * 10) / 10;
    return {
      with_hooks_ms: round(median(withHooks)),
      without_hooks_ms: round(median(without)),
      hooks_extra_ms: round(median(withHooks) - median(without)),
      sh_true_twice_ms: round(median(sh)),
      sandboxed_sh_true_twice_ms: round(median(boxed)),
      bare_bwrap_sh_true_twice_ms: round(median(bare)),
    };
  } finally {
    await plain.close();
    await hooked.close();
  }
}

if (import.meta.main) {
  const runs = Number(process.argv[2] ?? 15);
  const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
  console.log(JSON.stringify({ ...(await hookCost(runs)), runs, load }));
}
