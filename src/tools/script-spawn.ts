/**
 * Starts a shell's script in a process group of its own, in the sandbox when there is a plan, with
 * its output and its errors on pipes. In bwrap the output comes out on fd 3 (sandbox.ts `Wrapped`):
 * that pipe is read here as the process's stdout, and closed once read or given up; and the
 * sandbox's PID 1 is taken hold of before the command starts (sandbox-init.ts).
 */
import { closeSync } from "node:fs";
import type { FileSink, Subprocess } from "bun";
import { type Plan, withPrelude } from "./sandbox.ts";
import { BLOCK_FD, INFO_FD, type SandboxInit, takeInit } from "./sandbox-init.ts";

export type ScriptProcess = {
  proc: Subprocess;
  /** Its stdin, when asked for (`stdin: "pipe"`). */
  stdin: FileSink | null;
  stdout: ReadableStream<Uint8Array>;
  stderr: ReadableStream<Uint8Array>;
  /**
   * The bwrap sandbox's PID 1, known before the command starts (so by its exit); null without
   * bwrap, or where it could not be known (the group and the mark find the command's processes then).
   */
  init: Promise<SandboxInit | null>;
};

/** PRELUDE: the caller's own first line (its redirections), run before the script. */
export type ScriptSpawn = { cwd: string; env: Record<string, string>; plan?: Plan; stdin: "pipe" | "ignore"; prelude?: string };

/** SHELL (`sh -c` or the like) running SCRIPT. Throws as Bun.spawn does when it cannot start. */
export function spawnScript(shell: readonly string[], script: string, opts: ScriptSpawn): ScriptProcess {
  // Said of the script, not of the argv lembas wraps it in (Bun names an argument of that).
  if (script.includes("\0")) throw new Error("it contains a NUL character, which no command line can hold.");
  const prelude = opts.prelude ?? "";
  const wrapped = opts.plan && opts.plan.kind !== "none" ? opts.plan.script(shell, script, opts.cwd, prelude) : { argv: [...shell, withPrelude(prelude, script)], outputFd: 1, init: false };
  const base = { cwd: opts.cwd, env: opts.env, detached: true } as const;
  if (wrapped.outputFd === 1) {
    const proc = Bun.spawn(wrapped.argv, { ...base, stdin: opts.stdin, stdout: "pipe", stderr: "pipe" });
    return { proc, stdin: opts.stdin === "pipe" ? (proc.stdin as FileSink) : null, stdout: proc.stdout, stderr: proc.stderr, init: Promise.resolve(null) };
  }
  const proc = Bun.spawn(wrapped.argv, { ...base, stdio: [opts.stdin, "ignore", "pipe", "pipe", ...(wrapped.init ? (["pipe", "pipe"] as const) : [])] });
  const fd = proc.stdio[3];
  if (typeof fd !== "number") throw new Error("The command's output pipe could not be opened.");
  const [info, block] = [proc.stdio[INFO_FD], proc.stdio[BLOCK_FD]];
  const init = wrapped.init && typeof info === "number" && typeof block === "number" ? takeInit(info, block, proc.pid) : Promise.resolve(null);
  return { proc, stdin: opts.stdin === "pipe" ? (proc.stdin as FileSink) : null, stdout: fdStream(fd), stderr: proc.stderr as ReadableStream<Uint8Array>, init };
}

/** The pipe at FD read as a stream, closed at its end or when the reader gives up (Bun leaves it open). */
function fdStream(fd: number): ReadableStream<Uint8Array> {
  const reader = Bun.file(fd).stream().getReader();
  let open = true;
  const close = (): void => {
    if (!open) return;
    open = false;
    try {
      closeSync(fd);
    } catch {
      // closed already
    }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        close();
        controller.close();
      } catch (error) {
        close();
        controller.error(error);
      }
    },
    async cancel(reason) {
      await reader.cancel(reason).catch(() => {});
      close();
    },
  });
}
