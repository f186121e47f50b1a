// Records which bytecode the compiled binary runs when it starts the three usual ways — the
// terminal up to its composer, `lembas serve` idle, `lembas run` to its answer — into
// bytecode-order/<way>.txt, which build.ts hands to Bun (`bytecodeOrder`): the functions a start
// runs are laid out together at the front of the embedded program, so a start pages in fewer of
// its pages (an idle service and terminal hold less). A profile from an older build still applies
// to the functions unchanged since; run this again (`bun bytecode-order/record.ts`) after a large
// change of what a start loads, and commit the files.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BYTECODE_WAYS, build } from "../build.ts";
import { startModel } from "../test/support/model.ts";
import { benchHome, tmuxOn, untilFirstFrame, untilServing } from "../bench/bench-home.ts";

const HERE = import.meta.dir;

const dir = mkdtempSync(join(tmpdir(), "lembas-bytecode-order-"));
const model = await startModel({ fallback: { text: "hello" } });
try {
  // Built without a profile, so that what is recorded is the program's own order of use.
  const lembas = await build(join(dir, "lembas"), undefined, undefined, { bytecodeOrder: false });
  const { project, env } = benchHome(dir, model.url, { "README.md": "# project\n" });
  const out = (way: string) => join(HERE, `${way}.txt`);

  await recordTerminal(lembas, project, { ...env, BUN_BYTECODE_ORDER_OUT: out("terminal") }, dir);
  await recordServe(lembas, project, { ...env, BUN_BYTECODE_ORDER_OUT: out("serve") });
  const run = Bun.spawn([lembas, "run", "hi"], { cwd: project, env: { ...env, BUN_BYTECODE_ORDER_OUT: out("run") }, stdout: "ignore", stderr: "pipe" });
  if ((await run.exited) !== 0) throw new Error(`lembas run failed: ${await new Response(run.stderr).text()}`);
  for (const way of BYTECODE_WAYS) if (!existsSync(out(way))) throw new Error(`no profile was written for ${way}`);
  console.log(`recorded ${BYTECODE_WAYS.map((way) => `bytecode-order/${way}.txt`).join(", ")}`);
} finally {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
}

/** `lembas serve` until a second after its control socket is there, then stopped as a person would (SIGTERM). */
async function recordServe(lembas: string, cwd: string, env: Record<string, string>): Promise<void> {
  const proc = Bun.spawn([lembas, "serve"], { cwd, env, stdout: "ignore", stderr: "ignore" });
  try {
    await untilServing(env);
  } finally {
    proc.kill("SIGTERM");
  }
  await proc.exited;
}

/** The terminal in tmux (its own socket) until a second after its composer shows, then quit with Ctrl+D twice. */
async function recordTerminal(lembas: string, cwd: string, env: Record<string, string>, base: string): Promise<void> {
  const tmux = tmuxOn(`lembas-bytecode-order-${process.pid}`, env);
  const done = join(base, "terminal.done");
  const vars = Object.entries(env).filter(([k]) => k.startsWith("LEMBAS_") || k.startsWith("BUN_") || k === "HOME").map(([k, v]) => `${k}=${v}`).join(" ");
  tmux("new-session", "-d", "-x", "120", "-y", "40", "-c", cwd, `sh -c 'env ${vars} TERM=xterm-256color ${lembas}; touch ${done}'`);
  try {
    await untilFirstFrame(tmux);
    for (let i = 0; i < 100 && !existsSync(done); i++) {
      if (i % 20 === 0) tmux("send-keys", "C-d");
      await Bun.sleep(50);
    }
    if (!existsSync(done)) throw new Error("the terminal did not quit on Ctrl+D");
  } finally {
    tmux("kill-server");
  }
}
