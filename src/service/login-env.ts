/**
 * The person's login-shell environment (PATH from nvm, pyenv or asdf, SSH_AUTH_SOCK, LANG…), for
 * the commands of the sessions the service runs: a service manager starts the service with a
 * bare environment, and a command that works at the terminal should work from the web too.
 * Read by running $SHELL as a login (and, for bash, zsh and fish, interactive) shell that prints
 * its environment NUL-separated between two markers, so that what the rc files print is cut off.
 */
import { killGroup } from "../tools/process-group.ts";
import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import type { Env } from "../config/paths.ts";
import { type Shell, detectShell, readPasswdShell } from "../terminal/shell.ts";
import { waitMs } from "../timing.ts";

/** How long the login shell may take to start and print its environment. */
export const CAPTURE_TIMEOUT_MS = 5000;

/** Per-shell and per-terminal variables: true of the shell that printed them, not of a command the service runs. */
const NOISE = new Set([
  "PWD", "OLDPWD", "SHLVL", "_", "TERM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION", "TERM_SESSION_ID", "COLORTERM",
  "COLUMNS", "LINES", "PS1", "PS2", "PS4", "PROMPT_COMMAND", "TMUX", "TMUX_PANE", "STY", "WINDOWID",
  "SSH_TTY", "SSH_CONNECTION", "SSH_CLIENT", "GPG_TTY", "ZSH_EXECUTION_STRING", "BASH_EXECUTION_STRING",
]);

export type Captured = { ok: true; env: Record<string, string>; shell: string } | { ok: false; why: string; shell: string };

/** The login shell's environment, without the per-shell noise and lembas's own variables; never throws. */
export async function captureLoginEnv(env: Env = process.env, timeoutMs = waitMs("LOGIN_SHELL_MS", CAPTURE_TIMEOUT_MS)): Promise<Captured> {
  const shell = detectShell(env, readPasswdShell());
  const marker = `lembas-env-${randomUUID()}`;
  const script = `printf '\\n%s\\n' ${marker}; command env -0; printf '\\n%s\\n' ${marker}`;
  let proc: Bun.Subprocess<"ignore", "pipe", "ignore">;
  try {
    proc = Bun.spawn([shell.path, ...loginFlags(shell), "-c", script], {
      env: { ...env },
      // A HOME that does not exist (yet) would make the spawn itself fail: the shell starts in / then.
      cwd: isDir(env.HOME) ? env.HOME : "/",
      stdin: "ignore",
      stdout: "pipe",
      stderr: "ignore",
      detached: true,
    });
  } catch (error) {
    return { ok: false, why: `${shell.path} could not be started: ${error instanceof Error ? error.message : String(error)}`, shell: shell.path };
  }
  const output = await readUntil(proc, `\n${marker}\n`, timeoutMs);
  // The shell and whatever its rc files left running (an agent, a `sleep`): its process group (it leads one: detached).
  killGroup(proc.pid, "SIGKILL");
  if (output.timedOut) return { ok: false, why: `${shell.path} did not print its environment within ${timeoutMs / 1000} s`, shell: shell.path };
  const parsed = parseEnv0(output.text, marker);
  if (!parsed) return { ok: false, why: `${shell.path} printed something other than its environment`, shell: shell.path };
  return { ok: true, env: withoutNoise(parsed), shell: shell.path };
}

/** -l for every shell; -i too where rc files that set PATH (nvm's, in ~/.bashrc or ~/.zshrc) are read only then. */
function loginFlags(shell: Shell): string[] {
  return shell.kind === "other" ? ["-l"] : ["-l", "-i"];
}

/** The shell's stdout up to the second marker, or all of it when it ends first; timedOut when the time is up first. */
async function readUntil(proc: Bun.Subprocess<"ignore", "pipe", "ignore">, end: string, timeoutMs: number): Promise<{ text: string; timedOut: boolean }> {
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void reader.cancel().catch(() => {});
  }, timeoutMs);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { text, timedOut };
      text += decoder.decode(value, { stream: true });
      const first = text.indexOf(end);
      if (first >= 0 && text.indexOf(end, first + end.length) >= 0) return { text, timedOut: false };
    }
  } catch {
    return { text, timedOut };
  } finally {
    clearTimeout(timer);
  }
}

/** NAME=value entries between the markers; null when there are none, or one is not NAME=value. */
export function parseEnv0(output: string, marker: string): Record<string, string> | null {
  const parts = output.split(`\n${marker}\n`);
  const body = parts[1];
  if (parts.length < 3 || body === undefined) return null;
  const env: Record<string, string> = {};
  for (const entry of body.split("\0")) {
    if (entry === "") continue;
    const eq = entry.indexOf("=");
    const name = entry.slice(0, eq);
    if (eq <= 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return null;
    env[name] = entry.slice(eq + 1);
  }
  return Object.keys(env).length > 0 && env.PATH !== undefined ? env : null;
}

function withoutNoise(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !NOISE.has(name) && !name.startsWith("LEMBAS_") && !name.startsWith("BASH_FUNC_")));
}

/** What the service's sessions' commands start from: the login shell's environment, with the service's own LEMBAS_* kept. */
export function sessionBaseEnv(login: Record<string, string>, service: Env = process.env): Env {
  const own = Object.entries(service).filter(([name, value]) => name.startsWith("LEMBAS_") && value !== undefined);
  return { ...login, ...Object.fromEntries(own) };
}

function isDir(path: string | undefined): path is string {
  return path !== undefined && path !== "" && statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}
