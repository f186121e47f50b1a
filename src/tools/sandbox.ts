/**
 * The sandbox a tool's command runs in, so that it cannot read what lembas keeps from it: the
 * config dir and the state dir (the database with the device tokens, the control socket) are
 * hidden, and the lembas process itself is out of sight. Everything else stays as it is: the
 * filesystem read-write, the network, the same user.
 *
 * Linux: bubblewrap (`bwrap`) with a tmpfs over each hidden dir and a PID namespace of its own
 * with a fresh /proc (so /proc/<lembas pid>/fd and /environ are not there). macOS: sandbox-exec
 * with a profile denying file reads and writes under the hidden dirs. Neither: no sandbox.
 */
import { existsSync, realpathSync } from "node:fs";
import { sep } from "node:path";

export type SandboxTool = { kind: "bwrap" | "sandbox-exec"; path: string };

/** Which sandbox this machine has, or why there is none (`broken`: it is there, but does not start). */
export type Found = SandboxTool | { kind: "none"; why: string; broken: boolean };

/** How one command runs: wrapped in a sandbox, or as it is (and why). */
export type Plan =
  | { kind: "bwrap" | "sandbox-exec"; argv(command: string[], cwd: string): string[] }
  /** `fallback`: a sandbox is there but could not be used for this command, which the person is told once. */
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
  const probe = Bun.spawnSync(wrap(tool, [], ["true"], "/"), { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  if (probe.exitCode === 0) return tool;
  const said = probe.stderr.toString().trim().split("\n")[0] ?? "";
  return { kind: "none", why: `${tool.kind} could not start a sandbox${said ? ` (${said})` : ""}`, broken: true };
}

/**
 * How a command in the project at ROOT runs with the dirs in HIDDEN out of its reach. A hidden
 * dir inside the project (or the project inside one) cannot be hidden without hiding part of
 * the project, so the command then runs without the sandbox.
 */
export function planFor(hidden: readonly string[], root: string, tool: Found = findSandbox()): Plan {
  const dirs = existing(hidden);
  if (dirs.length === 0) return { kind: "none", why: "there is nothing to hide", fallback: false };
  if (tool.kind === "none") return { kind: "none", why: tool.why, fallback: tool.broken };
  const project = real(root);
  const inside = dirs.find((dir) => within(dir, project));
  if (inside) return { kind: "none", why: `${inside} is inside the project ${project}, so it cannot be hidden from its commands`, fallback: true };
  const holder = dirs.find((dir) => within(project, dir));
  if (holder) return { kind: "none", why: `the project ${project} is inside ${holder}, which the sandbox would hide`, fallback: true };
  return { kind: tool.kind, argv: (command, cwd) => wrap(tool, dirs, command, cwd) };
}

function wrap(tool: SandboxTool, hidden: readonly string[], command: string[], cwd: string): string[] {
  if (tool.kind === "sandbox-exec") return [tool.path, "-p", seatbeltProfile(hidden), ...command];
  // bwrap's PID 1 keeps stdin, stdout and stderr open until the last process of the sandbox ends,
  // so a background process would hold the output open even when it writes elsewhere. The output
  // goes in as fd 3 (which PID 1 closes) and becomes the command's stdout again inside; bwrap's
  // own stdout is /dev/null, its stderr (its own errors) stays.
  const outside = ["/bin/sh", "-c", 'exec 3>&1 >/dev/null; exec "$@"', "sh"];
  const inside = ["/bin/sh", "-c", 'exec 1>&3 3>&-; exec "$@"', "sh"];
  return [...outside, tool.path, ...bwrapArgs(hidden, cwd), ...inside, ...command];
}

/**
 * bwrap's arguments: the filesystem as it is (read-write, devices too), a tmpfs over each hidden
 * dir, a PID namespace with its own /proc. Not --die-with-parent: bwrap dies of the SIGTERM a
 * stopped command's group gets, which would SIGKILL the command at once, with no grace period.
 * Not --new-session: the command stays in the process group lembas stops it by.
 */
export function bwrapArgs(hidden: readonly string[], cwd: string): string[] {
  return [
    "--bind", "/", "/",
    "--dev-bind", "/dev", "/dev",
    ...hidden.flatMap((dir) => ["--tmpfs", dir]),
    "--unshare-pid",
    "--proc", "/proc",
    "--chdir", cwd,
    "--",
  ];
}

/** sandbox-exec's profile: everything allowed but reading or writing under the hidden dirs. */
export function seatbeltProfile(hidden: readonly string[]): string {
  const lines = ["(version 1)", "(allow default)"];
  if (hidden.length > 0) lines.push(`(deny file-read* file-write* ${hidden.map((dir) => `(subpath ${sbplString(dir)})`).join(" ")})`);
  return lines.join("\n");
}

function sbplString(text: string): string {
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

const said = new Set<string>();

/** The sentence for a command run without the sandbox, the first time only (per reason and process). */
export function sayOnce(why: string): string | null {
  if (said.has(why)) return null;
  said.add(why);
  return `This command ran without the sandbox (${why}): commands can read lembas's config and state dirs.`;
}

/** The dirs that exist, by their real paths (a mount point must exist, and macOS's /tmp is a symlink). */
function existing(dirs: readonly string[]): string[] {
  return [...new Set(dirs.filter((dir) => existsSync(dir)).map(real))];
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
}
