/**
 * The servers outside the sandbox that would run a sandboxed command's bidding there, where it
 * reads what the sandbox hides and outlives lembas: the service managers (`systemd-run --user
 * --pipe cat …/lembas.db`), the terminal multiplexers and editors the person works in (`tmux
 * new-window "…"`, `screen -X stuff`, `nvim --server … --remote-send`, `emacsclient --eval`,
 * kitty's, WezTerm's and VS Code's remote control) and the container engines (a container with
 * the host's / mounted is root on the host). Each is found from the environment and the places it
 * listens at without one; in the sandbox its dir is hidden or its socket covered with /dev/null
 * (connecting is refused), and the variable that names it is left out of the command's
 * environment. Only the sandbox closes them: without it a person's commands reach them as ever.
 *
 * Not closed: servers on the network (a `DOCKER_HOST=tcp://…`, an Emacs TCP server) and Linux's
 * abstract sockets (`KITTY_LISTEN_ON=unix:@…`): the sandbox shares the network.
 */
import { readdirSync, readFileSync, type Stats, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Env } from "../config/paths.ts";
import { isInside } from "../paths.ts";
import { realOr } from "../real-path.ts";

/** What the sandbox closes: dirs hidden (a tmpfs over each), sockets covered with /dev/null, variables left out of the command's environment. */
export type Servers = { dirs: readonly string[]; sockets: readonly string[]; unset: readonly string[] };

/** Where this machine keeps what the servers leave (tests give their own). */
export type Places = { run: string; varRun: string; tmp: string; home: string; uid: number; user: string };

/** Variables that only say where a server of the person's listens: TMUX_PANE and STY too, which tmux and screen read to act on the session around them. */
const NAMING = ["TMUX", "TMUX_PANE", "STY", "NVIM", "NVIM_LISTEN_ADDRESS", "EMACS_SOCKET_NAME", "KITTY_LISTEN_ON", "WEZTERM_UNIX_SOCKET", "VSCODE_IPC_HOOK_CLI", "VSCODE_IPC_HOOK", "VSCODE_GIT_IPC_HANDLE", "CONTAINERD_ADDRESS"];

/** The container engines' variables, named only when they lead to a unix socket (a TCP engine stays reachable, so the variable stays too). */
const ENGINE_URLS = ["DOCKER_HOST", "CONTAINER_HOST"];

export function thisMachine(env: Env): Places {
  const uid = process.getuid?.() ?? 0;
  const info = env.HOME && env.USER ? null : passwdEntry(uid);
  return { run: "/run", varRun: "/var/run", tmp: "/tmp", home: env.HOME || info?.homedir || "/", uid, user: env.USER || info?.username || String(uid) };
}

/** Everything the sandbox closes for a command with ENV (ROOT: lembas runs as root, the system's managers too). */
export function closedServers(env: Env, root: boolean, places: Places = thisMachine(env)): Servers {
  const managers = serviceManagers(env, root, places.run, places.uid);
  const others = personsServers(env, places);
  const dirs = [...new Set([...managers.dirs, ...others.dirs])];
  // A socket in a hidden dir is gone with the dir.
  const sockets = [...new Set([...managers.sockets, ...others.sockets])].filter((socket) => !dirs.some((dir) => isInside(socket, dir)));
  return { dirs, sockets, unset: others.unset };
}

/**
 * The user's systemd (its dir in the runtime dir: the private socket) and session bus, where
 * they are: at XDG_RUNTIME_DIR and at RUN/user/<uid>, where a command finds them without the
 * variable. For root, the system's too (systemd's private socket, the system bus).
 * DBUS_SESSION_BUS_ADDRESS is left out of every command's environment (environment.ts).
 */
export function serviceManagers(env: Env, root: boolean, run = "/run", uid = process.getuid?.()): Servers {
  const runtime = runtimeDirs(env, run, uid);
  const system = root ? [join(run, "systemd", "private"), join(run, "dbus", "system_bus_socket")] : [];
  return found(
    runtime.map((dir) => join(dir, "systemd")),
    [...runtime.map((dir) => join(dir, "bus")), ...system],
    [],
  );
}

/** The person's terminals', editors' and container engines' servers (see the top of this file). */
export function personsServers(env: Env, places: Places): Servers {
  const { run, varRun, tmp, home, uid, user } = places;
  const runtime = runtimeDirs(env, run, uid);
  const tmux = env.TMUX ? env.TMUX.split(",")[0] : undefined;
  const dirs = [
    // tmux: its dir of sockets (`tmux -L name` puts them there too), and $TMUX's dir when it is one
    // of those (not for `tmux -S ~/project/sock`: that would hide the project).
    ...[env.TMUX_TMPDIR, tmp].map((parent) => parent && join(parent, `tmux-${uid}`)),
    tmux && /^tmux-\d+$/.test(basename(dirname(tmux))) ? dirname(tmux) : undefined,
    join(run, "screen"), join(varRun, "screen"), join(home, ".screen"), env.SCREENDIR,
    // Neovim's default servers, where there is no runtime dir.
    ...[env.TMPDIR, tmp].map((parent) => parent && join(parent, `nvim.${user}`)),
    ...runtime.flatMap((dir) => [join(dir, "emacs"), join(dir, "wezterm"), join(dir, "podman"), join(dir, "containerd-rootless")]),
    ...[env.TMPDIR, tmp].map((parent) => parent && join(parent, `emacs${uid}`)),
    join(run, "podman"), join(run, "containerd"), join(run, "docker"),
  ];
  const unix = ENGINE_URLS.map((name) => unixPath(env[name]));
  const sockets = [
    tmux,
    ...["NVIM", "NVIM_LISTEN_ADDRESS", "EMACS_SOCKET_NAME", "WEZTERM_UNIX_SOCKET", "VSCODE_IPC_HOOK_CLI", "VSCODE_IPC_HOOK", "VSCODE_GIT_IPC_HANDLE", "CONTAINERD_ADDRESS"].map((name) => env[name]),
    env.KITTY_LISTEN_ON?.startsWith("unix:") ? env.KITTY_LISTEN_ON.slice("unix:".length) : undefined,
    ...unix,
    join(home, ".local", "share", "wezterm", "sock"),
    join(run, "docker.sock"), join(varRun, "docker.sock"),
    // In the runtime dir: rootless Docker, Neovim's default servers, VS Code's windows.
    ...runtime.flatMap((dir) => [join(dir, "docker.sock"), ...namesIn(dir, /^nvim\.\d+\.\d+$|^vscode-.*\.sock$/)]),
  ];
  const unset = [...NAMING.filter((name) => env[name] !== undefined), ...ENGINE_URLS.filter((name, i) => unix[i] !== undefined)];
  return { ...found(dirs, sockets), unset };
}

/** The runtime dirs a command finds without being told: XDG_RUNTIME_DIR's and RUN/user/<uid>. */
function runtimeDirs(env: Env, run: string, uid: number | undefined): string[] {
  return [env.XDG_RUNTIME_DIR, uid === undefined ? undefined : join(run, "user", String(uid))].filter((dir): dir is string => Boolean(dir));
}

/** A `unix://` URL's path (a container engine's address), or nothing for any other. */
function unixPath(url: string | undefined): string | undefined {
  if (!url?.startsWith("unix://")) return undefined;
  return url.slice("unix://".length) || undefined;
}

/** The dirs that are dirs and the sockets that are there and are not, each by its real path (a mount point must exist). */
function found(dirs: readonly (string | undefined)[], sockets: readonly (string | undefined)[], unset: readonly string[] = []): Servers {
  const real = (paths: readonly (string | undefined)[], isDir: boolean) => [
    ...new Set(
      paths
        .filter((path): path is string => Boolean(path?.startsWith("/")))
        .filter((path) => {
          const stats = safeFollowedStat(path);
          return stats !== null && stats.isDirectory() === isDir;
        })
        .map(realOr),
    ),
  ];
  return { dirs: real(dirs, true), sockets: real(sockets, false), unset };
}

function namesIn(dir: string, pattern: RegExp): string[] {
  try {
    return readdirSync(dir).filter((name) => pattern.test(name)).sort().map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/** A path's stat through links, or null when it is absent or cannot be read. */
export function safeFollowedStat(path: string): Stats | null {
  try {
    // Most places are absent: an absent one is said without an exception (tens of them at every command).
    return statSync(path, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

const fromPasswd = new Map<number, { homedir: string; username: string } | null>();

/** The user's name and home from /etc/passwd, read once a process (node:os's userInfo would load node:os on the first request's path). */
function passwdEntry(uid: number): { homedir: string; username: string } | null {
  if (!fromPasswd.has(uid)) fromPasswd.set(uid, readPasswd(uid));
  return fromPasswd.get(uid) ?? null;
}

function readPasswd(uid: number): { homedir: string; username: string } | null {
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const fields = line.split(":");
      if (fields.length >= 6 && Number(fields[2]) === uid) return { username: fields[0] ?? "", homedir: fields[5] ?? "" };
    }
  } catch {
    // No passwd to read: the names from the environment, else the uid, are used.
  }
  return null;
}
