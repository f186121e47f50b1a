/**
 * How the service code runs `systemctl`, `launchctl` and `loginctl`: a function, so that tests
 * hand in a scripted one and need no running systemd or launchd.
 */
import type { Env } from "../config/paths.ts";

/** What a command did. `missing` is set (code 127) when the program is not installed at all. */
export type CommandResult = { code: number; stdout: string; stderr: string; missing?: true };

/** Runs a program with its arguments to completion. */
export type CommandRunner = (argv: string[]) => Promise<CommandResult>;

/** A runner that spawns real programs found on PATH, each given at most `timeoutMs`. */
export function spawnRunner(env: Env = process.env, timeoutMs = 30_000): CommandRunner {
  return async (argv) => {
    const [program, ...args] = argv;
    const path = program ? Bun.which(program, { PATH: env.PATH ?? "" }) : null;
    if (!program || !path) return { code: 127, stdout: "", stderr: `${program ?? "(nothing)"}: not found`, missing: true };
    const proc = Bun.spawn([path, ...args], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: timeoutMs });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, stdout, stderr };
  };
}

/** The first line of a command's error output (else its output), for a one-line message. */
export function firstLine(result: CommandResult): string {
  const text = result.stderr.trim() || result.stdout.trim();
  return text.split("\n")[0]?.trim() || `exit code ${result.code}`;
}
