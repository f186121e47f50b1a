/**
 * The sandbox a tool's command runs in, so that it cannot read what lembas keeps from it: the
 * config dir and the state dir (the database with the device tokens, the control socket) are
 * hidden, the lembas process itself is out of sight, and so are the servers that would
 * run a command outside the sandbox (systemd, the session bus, tmux, an editor, a container
 * engine: sandbox-sockets.ts). Everything else stays as it is: the
 * filesystem read-write, the network, the same user (root too, without the capabilities that
 * would take the sandbox apart).
 *
 * Linux: bubblewrap (`bwrap`) with a tmpfs over each hidden dir and a PID namespace of its own
 * with a fresh /proc (so /proc/<lembas pid>/fd and /environ are not there). macOS: sandbox-exec
 * with a profile denying file reads and writes under the hidden dirs. Neither: no sandbox.
 */
import { existsSync } from "node:fs";
import { isInside } from "../paths.ts";
import { realOr } from "../real-path.ts";
import type { Env } from "../config/paths.ts";
import { hostDevices } from "./sandbox-devices.ts";
import { closedServers, safeFollowedStat, type Servers } from "./sandbox-sockets.ts";
import { BLOCK_FD, INFO_FD } from "./sandbox-init.ts";

export { passedDevices } from "./sandbox-devices.ts";

export type SandboxTool = { kind: "bwrap" | "sandbox-exec"; path: string };

/** Which sandbox this machine has, or why there is none (`broken`: it is there, but does not start). */
export type Found = SandboxTool | { kind: "none"; why: string; broken: boolean };

/** How one command runs: wrapped in a sandbox, or as it is (and why). */
export type Plan =
  | {
      kind: "bwrap" | "sandbox-exec";
      argv(command: string[], cwd: string): string[];
      /**
       * A shell's script (SHELL: its `sh -c`), with no shell of ours around it: see `Wrapped`.
       * PRELUDE: the caller's own first line (redirections), run before the script.
       */
      script(shell: readonly string[], script: string, cwd: string, prelude?: string): Wrapped;
    }
  /** `fallback`: a sandbox is there but cannot start, which the person is told once. */
  | { kind: "none"; why: string; fallback: boolean };

const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

const found = new Map<string, Found>();

/** The sandbox tool on this machine, tried once (with PATH) to see that it starts: it may lack user namespaces. */
export function findSandbox(opts: { PATH?: string; platform?: NodeJS.Platform } = {}): Found {
  const platform = opts.platform ?? process.platform;
  const key = `${platform}\0${opts.PATH ?? ""}`;
  const known = found.get(key);
  if (known) return known;
  const result = locate(platform, opts.PATH);
  found.set(key, result);
  return result;
}

function locate(platform: NodeJS.Platform, PATH: string | undefined): Found {
  if (platform === "darwin") {
    if (!existsSync(SANDBOX_EXEC)) return { kind: "none", why: `${SANDBOX_EXEC} is not there`, broken: false };
    return tried({ kind: "sandbox-exec", path: SANDBOX_EXEC });
  }
  if (platform !== "linux") return { kind: "none", why: `lembas has no sandbox for ${platform}`, broken: false };
  const bwrap = Bun.which("bwrap", PATH === undefined ? {} : { PATH });
  if (!bwrap) return { kind: "none", why: "bwrap (bubblewrap) is not installed", broken: false };
  return tried({ kind: "bwrap", path: bwrap });
}

/** The tool, if `true` runs in it; else why not, in its own words. */
function tried(tool: SandboxTool): Found {
  const probe = Bun.spawnSync(wrap(tool, [], ["true"], "/", process.env), { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  if (probe.exitCode === 0) return tool;
  const said = probe.stderr.toString().trim().split("\n")[0] ?? "";
  return { kind: "none", why: `${tool.kind} could not start a sandbox${said ? ` (${said})` : ""}`, broken: true };
}

/**
 * How a command in the project at ROOT runs with the dirs in HIDDEN out of its reach (a file there
 * reads empty). A hidden dir
 * inside the project is hidden all the same (the command sees it empty); a project inside a hidden
 * dir stays in sight, the rest of that dir does not; a project that is a hidden dir is hidden too
 * (the command's cwd is an empty dir).
 */
export function planFor(hidden: readonly string[], root: string, tool: Found = findSandbox(), env: Env = process.env, shown: readonly string[] = []): Plan {
  const found = existing(hidden);
  if (found.length === 0) return { kind: "none", why: "there is nothing to hide", fallback: false };
  if (tool.kind === "none") return { kind: "none", why: tool.why, fallback: tool.broken };
  const dirs = found.filter((path) => safeFollowedStat(path)?.isDirectory() !== false);
  const files = found.filter((path) => !dirs.includes(path));
  // SHOWN: paths inside a hidden dir put back in sight (a hook's transcript in the state dir).
  const view = [...layers(dirs, realOr(root)), ...files.map((file) => ({ hideFile: file })), ...existing(shown).map((keep) => ({ keep }))];
  return { kind: tool.kind, argv: (command, cwd) => wrap(tool, view, command, cwd, env), script: (shell, script, cwd, prelude = "") => wrapScript(tool, view, shell, script, prelude, cwd, env) };
}

/** One step of what the command sees, in order: a dir hidden, the project put back in sight, or a file hidden (it reads empty). */
export type Layer = { hide: string } | { keep: string } | { hideFile: string };

/**
 * The hidden dirs that hold the project go first, then the project back, then the other hidden
 * dirs. A project that is itself a hidden dir is not put back: that would put back all of the dir.
 */
export function layers(hidden: readonly string[], project: string): Layer[] {
  if (hidden.includes(project)) return hidden.map((dir) => ({ hide: dir }));
  const holders = hidden.filter((dir) => isInside(project, dir)).sort((a, b) => a.length - b.length);
  const others = hidden.filter((dir) => !isInside(project, dir));
  if (holders.length === 0) return others.map((dir) => ({ hide: dir }));
  return [...holders.map((dir) => ({ hide: dir })), { keep: project }, ...others.map((dir) => ({ hide: dir }))];
}

/** ENV: the command's environment, which says where the servers outside the sandbox listen. */
function wrap(tool: SandboxTool, view: readonly Layer[], command: string[], cwd: string, env: Env): string[] {
  if (tool.kind === "sandbox-exec") return [tool.path, "-p", seatbeltProfile(view), ...command];
  // bwrap's PID 1 keeps stdin, stdout and stderr open until the last process of the sandbox ends,
  // so a background process would hold the output open even when it writes elsewhere. The output
  // goes in as fd 3 (which PID 1 closes) and becomes the command's stdout again inside; bwrap's
  // own stdout is /dev/null, its stderr (its own errors) stays.
  const outside = ["/bin/sh", "-c", 'exec 3>&1 >/dev/null; exec "$@"', "sh"];
  const inside = ["/bin/sh", "-c", 'exec 1>&3 3>&-; exec "$@"', "sh"];
  return [...outside, tool.path, ...bwrapArgs(view, cwd, thisHost(tool.path, env)), ...inside, ...command];
}

/**
 * How a script runs in the sandbox: its argv, and the fd of the command where its output is to go
 * (3 for bwrap, for the reason `wrap` gives; the spawner puts /dev/null on its stdout). INIT: bwrap
 * writes its PID 1's pid on fd 4 and waits for a byte on fd 5 before it starts the command
 * (sandbox-init.ts: what ends the sandbox for certain).
 */
export type Wrapped = { argv: string[]; outputFd: 1 | 3; init: boolean };

/**
 * `wrap` for a shell's script, without the two `sh` starts around bwrap: the spawner passes the
 * output as fd 3 itself, and the script's own shell moves it back to its stdout first, on the
 * line of the caller's PRELUDE where there is one: the script's line numbers (`$LINENO`, where a
 * syntax error is) are then those it has without the sandbox.
 */
function wrapScript(tool: SandboxTool, view: readonly Layer[], shell: readonly string[], script: string, prelude: string, cwd: string, env: Env): Wrapped {
  if (tool.kind === "sandbox-exec") return { argv: wrap(tool, view, [...shell, withPrelude(prelude, script)], cwd, env), outputFd: 1, init: false };
  const init = ["--info-fd", String(INFO_FD), "--block-fd", String(BLOCK_FD)];
  return { argv: [tool.path, ...init, ...bwrapArgs(view, cwd, thisHost(tool.path, env)), ...shell, withPrelude(prelude ? `exec 1>&3 3>&-; ${prelude}` : "exec 1>&3 3>&-", script)], outputFd: 3, init: true };
}

/** SCRIPT after a line of PRELUDE (when there is one). */
export function withPrelude(prelude: string, script: string): string {
  return prelude ? `${prelude}\n${script}` : script;
}

/**
 * What bwrap needs to know of the machine: whether lembas runs as root, which devices to pass,
 * which servers outside the sandbox to close (sandbox-sockets.ts), and whether the tmpfs over a
 * server's dir can keep the dir's mode.
 */
export type Host = { root: boolean; devices: readonly string[]; managers: Servers; modes: boolean };

/**
 * What root keeps in the sandbox: enough to work on files that are not its own and to use low
 * ports as it would outside. Not CAP_SYS_ADMIN (unmounting the tmpfs), not CAP_DAC_READ_SEARCH
 * (open_by_handle_at reaches a file past any mount), not CAP_MKNOD (a disk's device node), not
 * CAP_NET_RAW (reading lembas's traffic on the loopback).
 */
const ROOT_CAPS = ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_NET_BIND_SERVICE"];

/**
 * bwrap's arguments: the filesystem as it is (read-write), a tmpfs over each hidden dir (the
 * project bound back where it is inside one), a PID namespace with its own /proc, and no
 * capabilities. /dev is the host's for a user other than root, whom the disks' permissions keep
 * out; for root, whom they do not, it is a fresh one with the host's shared memory and the
 * character devices of `passedDevices`, but no disks. For root, /sys and /proc/sys are read-only
 * too: root may write there without any capability, and a core_pattern or a uevent helper runs a
 * program outside the sandbox. The servers of `closedServers` are closed. Not
 * --die-with-parent: bwrap dies of the SIGTERM a stopped command's group gets, which would SIGKILL
 * the command at once, with no grace period (the watchdog stops a sandbox whose lembas was killed:
 * watchdog.ts). Not --new-session: the command stays in the process
 * group lembas stops it by.
 */
export function bwrapArgs(view: readonly Layer[], cwd: string, host: Host): string[] {
  // In this order for speed: bwrap reads the whole mount table after each bind, and the
  // read-only /sys adds a copy of every mount under it (a dozen cgroups), so it comes after the
  // devices. The hidden dirs and the service managers come last, over everything else.
  return [
    "--bind", "/", "/",
    ...(host.root ? ["--dev", "/dev", "--bind-try", "/dev/shm", "/dev/shm", ...host.devices.flatMap((path) => ["--dev-bind-try", path, path])] : ["--dev-bind", "/dev", "/dev"]),
    "--unshare-pid",
    "--proc", "/proc",
    ...(host.root ? ["--ro-bind-try", "/proc/sys", "/proc/sys", "--ro-bind-try", "/sys", "/sys"] : []),
    ...view.flatMap((layer) => ("hide" in layer ? ["--tmpfs", layer.hide] : "keep" in layer ? ["--bind", layer.keep, layer.keep] : ["--ro-bind", "/dev/null", layer.hideFile])),
    ...host.managers.dirs.flatMap((dir) => [...modeOf(dir, host.modes), "--tmpfs", dir]),
    ...host.managers.sockets.flatMap((socket) => ["--ro-bind", "/dev/null", socket]),
    ...host.managers.unset.flatMap((name) => ["--unsetenv", name]),
    "--cap-drop", "ALL",
    ...(host.root ? ROOT_CAPS.flatMap((cap) => ["--cap-add", cap]) : []),
    "--chdir", cwd,
    "--",
  ];
}

function thisHost(bwrap: string, env: Env): Host {
  const root = process.getuid?.() === 0;
  const managers = closedServers(env, root);
  // bwrap is asked whether it takes --perms only where there is a dir to hide (a spawn of its own).
  return { root, devices: root ? hostDevices() : [], managers, modes: managers.dirs.length > 0 && setsModes(bwrap) };
}

/** `--perms` for a hidden dir's tmpfs, with the dir's own mode (tmux refuses a dir of its sockets that others may read), where bwrap takes it. */
function modeOf(dir: string, modes: boolean): string[] {
  const mode = modes ? safeFollowedStat(dir)?.mode : undefined;
  return mode === undefined ? [] : ["--perms", (mode & 0o7777).toString(8).padStart(4, "0")];
}

const withModes = new Map<string, boolean>();

/** Whether this bwrap sets a tmpfs's mode (`--perms`, bubblewrap 0.5): an older one gives every tmpfs 0755. */
function setsModes(bwrap: string): boolean {
  const known = withModes.get(bwrap);
  if (known !== undefined) return known;
  const help = Bun.spawnSync([bwrap, "--help"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const takes = `${help.stdout.toString()}${help.stderr.toString()}`.includes("--perms");
  withModes.set(bwrap, takes);
  return takes;
}

/** sandbox-exec's profile: everything allowed but reading or writing under the hidden dirs (the last rule that matches wins). */
export function seatbeltProfile(view: readonly Layer[]): string {
  const rules = view.map((layer) => {
    if ("hide" in layer) return `(deny file-read* file-write* (subpath ${sbplString(layer.hide)}))`;
    if ("keep" in layer) return `(allow file-read* file-write* (subpath ${sbplString(layer.keep)}))`;
    return `(deny file-read* file-write* (literal ${sbplString(layer.hideFile)}))`;
  });
  return ["(version 1)", "(allow default)", ...rules].join("\n");
}

function sbplString(text: string): string {
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

const said = new Set<string>();

/** The sentence for commands run without the sandbox, the first time only (per reason and process). */
export function sayOnce(why: string): string | null {
  if (said.has(why)) return null;
  said.add(why);
  return `Commands run without the sandbox (${why}): they can read lembas's config and state dirs, the device tokens too.`;
}

/** The dirs (and files) that exist, by their real paths (a mount point must exist, and macOS's /tmp is a symlink). */
function existing(dirs: readonly string[]): string[] {
  return [...new Set(dirs.filter((dir) => existsSync(dir)).map(realOr))];
}


