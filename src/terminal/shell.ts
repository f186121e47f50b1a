import { accessSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { isAlive } from "../processes.ts";
import bashRc from "./bash-rc.sh" with { type: "text" };
import fishRc from "./fish-rc.fish" with { type: "text" };
import zshEnv from "./zsh-env.zsh" with { type: "text" };
import zshLogin from "./zsh-login.zsh" with { type: "text" };
import zshStep from "./zsh-step.zsh" with { type: "text" };

/**
 * The person's login shell, and how to start it: a plain login shell, or — for bash, zsh and fish
 * with integration — one that reads the person's own start-up files first, as a login shell reads
 * them, and then marks every prompt with OSC 133 and the directory with OSC 7 (the rc wrappers
 * beside this file say how, each for its shell). Nothing else in the person's environment changes.
 */

export type ShellKind = "bash" | "zsh" | "fish" | "other";

export type Shell = { path: string; kind: ShellKind };

/** An environment as the process has it (values may be missing). */
export type Env = Record<string, string | undefined>;

/** How to start the shell in a PTY. */
export type ShellLaunch = {
  command: string[];
  /** argv[0] when it is not command[0]: "-bash" makes a plain login shell. */
  argv0?: string;
  env: Record<string, string>;
  /** Whether the rc wrapper is in use (false for "other" and when integration is off). */
  integration: boolean;
  /** Removes the rc wrapper's temp dir; call once the shell has exited. */
  cleanup(): void;
};

export type ShellLaunchOptions = {
  shell: Shell;
  integration: boolean;
  /** The person's home directory (HOME, when env has none). */
  home: string;
  /** The environment to start the shell with. */
  env: Record<string, string>;
};

const TEMP_PREFIX = "lembas-shell-";

/** bash, zsh or fish by the program's name; anything else (rbash, sh, ksh, …) is "other". */
export function shellKind(path: string): ShellKind {
  const name = basename(path).replace(/^-/, "");
  return name === "bash" || name === "zsh" || name === "fish" ? name : "other";
}

/**
 * The person's login shell: $SHELL, else the shell of their passwd entry (`passwdShell`, from
 * readPasswdShell()), else /bin/sh — the first that is an absolute path to an executable.
 */
export function detectShell(env: Env, passwdShell: string | null): Shell {
  for (const candidate of [env.SHELL, passwdShell, "/bin/sh"]) {
    if (candidate && candidate.startsWith("/") && isExecutable(candidate)) {
      return { path: candidate, kind: shellKind(candidate) };
    }
  }
  return { path: "/bin/sh", kind: "other" };
}

/**
 * The login shell in the passwd entry of the user `uid` (this process's by default): from
 * `getent passwd` (which asks NSS: LDAP, systemd-homed…), /etc/passwd, or on macOS Directory
 * Services. Null when none is found.
 */
export function readPasswdShell(uid = process.getuid?.() ?? -1, user = process.env.USER): string | null {
  if (uid < 0) return null;
  if (process.platform === "darwin") return user ? dsclShell(user) : null;
  const fromGetent = getentShell(uid);
  if (fromGetent) return fromGetent;
  try {
    return passwdLineShell(readFileSync("/etc/passwd", "utf8"), uid);
  } catch {
    return null;
  }
}

/** The shell `getent passwd` says; null without getent on PATH (Bun.spawnSync throws then). */
function getentShell(uid: number): string | null {
  try {
    const getent = Bun.spawnSync(["getent", "passwd", String(uid)], { stdout: "pipe", stderr: "ignore" });
    return getent.success ? passwdLineShell(getent.stdout.toString(), uid) : null;
  } catch {
    return null;
  }
}

/** The shell field of the line for `uid` in passwd-format text. */
export function passwdLineShell(text: string, uid: number): string | null {
  for (const line of text.split("\n")) {
    const fields = line.split(":");
    if (fields.length >= 7 && fields[2] === String(uid)) return fields[6]?.trim() || null;
  }
  return null;
}

function dsclShell(user: string): string | null {
  const out = Bun.spawnSync(["dscl", ".", "-read", `/Users/${user}`, "UserShell"], { stdout: "pipe", stderr: "ignore" });
  const match = /UserShell:\s*(\S+)/.exec(out.stdout.toString());
  return match?.[1] ?? null;
}

/**
 * How to start `shell` as a login shell. With integration, for bash, zsh and fish, the rc wrapper
 * is written into a private temp dir (mode 0700), which cleanup() removes.
 */
export function shellLaunch(opts: ShellLaunchOptions): ShellLaunch {
  const { shell } = opts;
  const env = { ...opts.env, HOME: opts.env.HOME ?? opts.home };
  if (!opts.integration || shell.kind === "other") return plainLogin(shell, env);
  sweepStaleDirs();
  const dir = mkdtempSync(join(tmpdir(), `${TEMP_PREFIX}${process.pid}-`));
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    return { ...integrated(shell, dir, env), integration: true, cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

function plainLogin(shell: Shell, env: Record<string, string>): ShellLaunch {
  return { command: [shell.path], argv0: `-${basename(shell.path)}`, env, integration: false, cleanup: () => {} };
}

function integrated(shell: Shell, dir: string, env: Record<string, string>): Pick<ShellLaunch, "command" | "env"> {
  switch (shell.kind) {
    case "bash": {
      const rc = writeRc(dir, "bashrc", bashRc);
      return { command: [shell.path, "--rcfile", rc, "-i"], env };
    }
    case "zsh": {
      const quoted = shQuote(dir);
      const fill = (text: string, file = ""): string => text.replaceAll("@DIR@", quoted).replaceAll("@FILE@", file);
      writeRc(dir, ".zshenv", fill(zshEnv));
      writeRc(dir, ".zprofile", fill(zshStep, ".zprofile"));
      writeRc(dir, ".zshrc", fill(zshStep, ".zshrc"));
      writeRc(dir, ".zlogin", fill(zshLogin));
      const { ZDOTDIR, ...rest } = env;
      const zshEnvVars: Record<string, string> = { ...rest, ZDOTDIR: dir };
      if (ZDOTDIR !== undefined) zshEnvVars.LEMBAS_USER_ZDOTDIR = ZDOTDIR;
      return { command: [shell.path, "-l"], env: zshEnvVars };
    }
    case "fish": {
      const rc = writeRc(dir, "lembas.fish", fishRc);
      return { command: [shell.path, "--login", "--init-command", `source ${fishQuote(rc)}`], env };
    }
    case "other":
      throw new Error("No rc wrapper for this shell.");
  }
}

function writeRc(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

/** Removes the temp dirs of lembas processes that are gone (a crash leaves them behind). */
function sweepStaleDirs(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^lembas-shell-(\d+)-/.exec(name)?.[1]);
    if (!pid || isAlive(pid)) continue;
    rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A single-quoted word for sh and zsh. */
function shQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A single-quoted word for fish (where \\ and \' are the escapes). */
function fishQuote(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}
