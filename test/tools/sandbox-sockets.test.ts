import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bashTool } from "../../src/tools/bash.ts";
import { bwrapArgs } from "../../src/tools/sandbox.ts";
import { closedServers, type Places } from "../../src/tools/sandbox-sockets.ts";
import { bwrapSandbox, tool } from "../support/tools.ts";
import { cleanupTempDirs, makeContext, run, tempDir } from "./context.ts";

afterAll(cleanupTempDirs);

const bwrap = bwrapSandbox("the tests of the servers a sandboxed command cannot reach");
const tmux = tool("tmux", "tmux", "the sandbox's tmux test");
const python = tool("python3", "python3", "the sandbox's container engine and editor socket tests");
const uid = process.getuid?.() ?? 0;

/** The variables a terminal, an editor and a container engine set, each leading to a server outside the sandbox. */
const NAMING = {
  TMUX: "/tmp/tmux-1000/default,4242,0",
  TMUX_PANE: "%3",
  STY: "4242.pts-1.host",
  NVIM: "/run/user/1000/nvim.4242.0",
  NVIM_LISTEN_ADDRESS: "/tmp/nvimX/0",
  EMACS_SOCKET_NAME: "/tmp/emacs1000/server",
  KITTY_LISTEN_ON: "unix:/tmp/kitty",
  WEZTERM_UNIX_SOCKET: "/run/user/1000/wezterm/gui-sock-4242",
  VSCODE_IPC_HOOK_CLI: "/run/user/1000/vscode-ipc-1.sock",
  VSCODE_GIT_IPC_HANDLE: "/run/user/1000/vscode-git-1.sock",
  DOCKER_HOST: "unix:///run/user/1000/docker.sock",
};

/** A unix socket listening at PATH (a server nobody must reach from the sandbox). */
function listening(path: string) {
  return Bun.listen({ unix: path, socket: { data() {} } });
}

/** Connects to each unix socket named and says how it went. */
const CONNECT_PY = [
  "import socket, sys",
  "for path in sys.argv[1:]:",
  "    s = socket.socket(socket.AF_UNIX)",
  "    try: s.connect(path); print(path, 'connected')",
  "    except OSError as e: print(path, type(e).__name__)",
].join("\n");

describe.skipIf(!bwrap || !tmux)("the person's tmux server, from a sandboxed command", () => {
  test("a command in a tmux pane can neither open a window in the server nor see its sockets; it can run a tmux server of its own", async () => {
    const tmpdir = tempDir();
    const name = `lembas-sock-${process.pid}`;
    const outer = { ...process.env, TMUX_TMPDIR: tmpdir, TMUX: undefined, TMUX_PANE: undefined };
    const tmuxCmd = (...args: string[]) => Bun.spawnSync(["tmux", "-L", name, ...args], { env: outer, stdin: "ignore" });
    expect(tmuxCmd("new-session", "-d", "-s", "host", "sleep 3000").exitCode).toBe(0);
    try {
      // As tmux sets them for the commands of its panes.
      const [socket, pane] = tmuxCmd("display", "-p", "-t", "host", "#{socket_path},#{pid},0 #{pane_id}").stdout.toString().trim().split(" ");
      const sockets = join(tmpdir, `tmux-${uid}`);
      const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tempDir(), TMUX_TMPDIR: tmpdir, TMUX: socket ?? "", TMUX_PANE: pane ?? "" };
      const { ctx } = makeContext({ root: tempDir(), hidden: [tempDir()], env });
      const marker = join(tempDir(), "ran-outside");
      const window = `touch ${marker}; exec sleep 3001`;
      const command = [
        `tmux new-window -d "${window}" 2>/dev/null; echo default=$?`,
        `tmux -S ${socket?.split(",")[0]} new-window -d "${window}" 2>/dev/null; echo named=$?`,
        `ls -A ${sockets}`,
        "echo TMUX=${TMUX-none} PANE=${TMUX_PANE-none}",
        // Its own server, in the hidden dir (as private as the real one, which tmux insists on).
        "tmux -L mine new-session -d -s inside 'sleep 30' && tmux -L mine list-sessions -F '#{session_name}'; tmux -L mine kill-server",
      ].join("; ");
      const result = await run(bashTool, { command }, ctx);
      expect(result.output).toBe("default=1\nnamed=1\nTMUX=none PANE=none\ninside");
      // The server made no window: what it would have run is not running outside either.
      expect(tmuxCmd("list-windows", "-t", "host", "-F", "#{window_index}").stdout.toString().trim().split("\n")).toEqual(["0"]);
      expect(existsSync(marker)).toBe(false);
    } finally {
      tmuxCmd("kill-server");
    }
  });
});

describe.skipIf(!bwrap || !python)("the other servers' sockets, from a sandboxed command", () => {
  test("the container engine's, Neovim's, VS Code's, kitty's and WezTerm's are refused or not there; the variables naming them are left out", async () => {
    const runtime = tempDir();
    const elsewhere = tempDir();
    mkdirSync(join(runtime, "wezterm"));
    const paths = {
      docker: join(runtime, "docker.sock"),
      dockerHost: join(elsewhere, "engine.sock"),
      nvim: join(runtime, "nvim.4242.0"),
      vscode: join(runtime, "vscode-ipc-1.sock"),
      kitty: join(elsewhere, "kitty.sock"),
      wezterm: join(runtime, "wezterm", "gui-sock-4242"),
    };
    const servers = Object.values(paths).map(listening);
    try {
      const env = {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: tempDir(),
        XDG_RUNTIME_DIR: runtime,
        DOCKER_HOST: `unix://${paths.dockerHost}`,
        KITTY_LISTEN_ON: `unix:${paths.kitty}`,
        VSCODE_IPC_HOOK_CLI: paths.vscode,
        KEPT: "yes",
      };
      const { ctx } = makeContext({ root: tempDir(), hidden: [tempDir()], env });
      const command = `python3 -c "${CONNECT_PY}" ${Object.values(paths).join(" ")}; ls -A ${join(runtime, "wezterm")}; echo $KEPT \${DOCKER_HOST-none} \${KITTY_LISTEN_ON-none} \${VSCODE_IPC_HOOK_CLI-none}`;
      const result = await run(bashTool, { command }, ctx);
      expect(result.output).toBe(
        [
          `${paths.docker} ConnectionRefusedError`,
          `${paths.dockerHost} ConnectionRefusedError`,
          `${paths.nvim} ConnectionRefusedError`,
          `${paths.vscode} ConnectionRefusedError`,
          `${paths.kitty} ConnectionRefusedError`,
          `${paths.wezterm} FileNotFoundError`,
          "yes none none none",
        ].join("\n"),
      );
      // Without the sandbox (nothing to hide), the person's commands reach them as ever.
      const { ctx: plain } = makeContext({ root: tempDir(), hidden: [], env });
      const outside = await run(bashTool, { command }, plain);
      expect(outside.output).toContain(`${paths.docker} connected`);
      expect(outside.output).toContain(`yes unix://${paths.dockerHost} unix:${paths.kitty} ${paths.vscode}`);
    } finally {
      for (const server of servers) server.stop(true);
    }
  });
});

describe("where the servers are found", () => {
  /** A machine of its own: its /run, /var/run, /tmp and home, each a temp dir. */
  function machine(): Places {
    return { run: tempDir(), varRun: tempDir(), tmp: tempDir(), home: tempDir(), uid, user: "me" };
  }

  test("tmux's, screen's, Emacs's, Neovim's, WezTerm's, podman's, containerd's and Docker's dirs and sockets at their well-known places", () => {
    const places = machine();
    const runtime = join(places.run, "user", String(uid));
    const dirs = [
      join(places.tmp, `tmux-${uid}`),
      join(places.run, "screen"),
      join(places.home, ".screen"),
      join(places.tmp, "nvim.me"),
      join(runtime, "emacs"),
      join(runtime, "wezterm"),
      join(runtime, "podman"),
      join(places.tmp, `emacs${uid}`),
      join(places.run, "podman"),
      join(places.run, "containerd"),
    ];
    for (const dir of dirs) mkdirSync(dir, { recursive: true });
    const sockets = [join(places.run, "docker.sock"), join(runtime, "docker.sock"), join(runtime, "nvim.77.0"), join(runtime, "vscode-git-1.sock")];
    for (const socket of sockets) writeFileSync(socket, "");
    writeFileSync(join(runtime, "pulse"), "");
    expect(closedServers({}, false, places)).toEqual({ dirs, sockets, unset: [] });
    expect(closedServers({}, false, machine())).toEqual({ dirs: [], sockets: [], unset: [] });
  });

  test("the places the environment names: TMUX_TMPDIR, $TMUX (its dir when tmux made it), SCREENDIR, the sockets of the editors and engines; a socket in a hidden dir is not covered twice", () => {
    const places = machine();
    const given = tempDir();
    const tmuxDir = join(given, `tmux-${uid}`);
    const screen = join(given, "screens");
    for (const dir of [tmuxDir, screen]) mkdirSync(dir);
    const own = join(given, "own.sock");
    const engine = join(given, "engine.sock");
    for (const socket of [join(tmuxDir, "default"), own, engine]) writeFileSync(socket, "");
    const env = { TMUX_TMPDIR: given, TMUX: `${join(tmuxDir, "default")},1,0`, TMUX_PANE: "%1", SCREENDIR: screen, NVIM: own, CONTAINER_HOST: `unix://${engine}`, DOCKER_HOST: "tcp://10.0.0.1:2375" };
    expect(closedServers(env, false, places)).toEqual({ dirs: [tmuxDir, screen], sockets: [own, engine], unset: ["TMUX", "TMUX_PANE", "NVIM", "CONTAINER_HOST"] });
    // `tmux -S` in a dir of the person's: the socket alone, never the dir (it may hold the project).
    expect(closedServers({ TMUX: `${own},1,0` }, false, places).dirs).toEqual([]);
    expect(closedServers({ TMUX: `${own},1,0` }, false, places).sockets).toEqual([own]);
  });

  test("bwrap leaves the naming variables out of the command's environment", () => {
    const args = bwrapArgs([], "/", { root: false, devices: [], managers: { dirs: [], sockets: [], unset: ["TMUX", "TMUX_PANE"] }, modes: false }).join(" ");
    expect(args).toContain("--unsetenv TMUX --unsetenv TMUX_PANE");
  });

  test("the tmpfs over a server's dir keeps the dir's mode where bwrap can set it (tmux refuses a dir others may read)", () => {
    const dir = tempDir();
    const servers = { dirs: [dir], sockets: [], unset: [] };
    expect(bwrapArgs([], "/", { root: false, devices: [], managers: servers, modes: true }).join(" ")).toContain(`--perms 0700 --tmpfs ${dir}`);
    expect(bwrapArgs([], "/", { root: false, devices: [], managers: servers, modes: false })).not.toContain("--perms");
  });

  test("every naming variable the person's environment has is left out; a TCP engine's address stays (the sandbox cannot close the network)", () => {
    const unset = closedServers({ ...NAMING, PATH: "/bin", HOME: tempDir() }, false, machine()).unset;
    expect([...unset].sort()).toEqual(Object.keys(NAMING).sort());
    expect(closedServers({ DOCKER_HOST: "tcp://10.0.0.1:2375" }, false, machine()).unset).toEqual([]);
  });
});
