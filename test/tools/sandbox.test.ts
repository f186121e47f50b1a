import { afterAll, describe, expect, test } from "bun:test";
import { accessSync, chmodSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bashTool } from "../../src/tools/bash.ts";
import { Jobs } from "../../src/tools/jobs.ts";
import { bwrapArgs, findSandbox, layers, passedDevices, planFor, seatbeltProfile } from "../../src/tools/sandbox.ts";
import { serviceManagers } from "../../src/tools/sandbox-sockets.ts";
import { cleanupTempDirs, makeContext, run, tempDir } from "./context.ts";

afterAll(cleanupTempDirs);

const bwrap = bwrapSandbox("the bwrap sandbox tests");

/** A project, and a state dir beside it (outside it) holding a secret, hidden from the commands. */
function sandboxed(opts: { signal?: AbortSignal } = {}) {
  const dir = tempDir();
  const root = join(dir, "project");
  const state = join(dir, "state");
  mkdirSync(root);
  mkdirSync(state);
  writeFileSync(join(state, "lembas.db"), "the-device-token");
  return { dir, root, state, ...makeContext({ root, hidden: [state], ...(opts.signal ? { signal: opts.signal } : {}) }) };
}

/** The pids (as this process sees them) of the processes that are `sleep MARKER`. */
function pidsWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (cmdline === `sleep\0${marker}\0` && state !== "Z" && state !== "X") pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function waitUntil(check: () => boolean, ms = 3_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await Bun.sleep(20);
  }
  return check();
}

/** A sleep nobody else runs, found from outside the sandbox by its argument. */
const uniqueSleep = () => `1000.${Math.floor(Math.random() * 1e6)}`;

describe.skipIf(!bwrap)("bash in the bwrap sandbox", () => {
  test("the hidden dir is empty to the command and what it writes there never reaches the real one", async () => {
    const { ctx, state } = sandboxed();
    const result = await run(bashTool, { command: `cat ${state}/lembas.db; ls -A ${state}; echo mine > ${state}/x; echo listed; ls -A ${state}` }, ctx);
    expect(result.output).toBe(`cat: ${state}/lembas.db: No such file or directory\nlisted\nx`);
    expect(readdirSync(state)).toEqual(["lembas.db"]);
  });

  test("the lembas process is not in the command's /proc", async () => {
    const { ctx } = sandboxed();
    const result = await run(bashTool, { command: `ls /proc | grep -E '^[0-9]+$'; cat /proc/${process.pid}/environ` }, ctx);
    const pids = result.output.split("\n").filter((line) => /^\d+$/.test(line)).map(Number);
    expect(pids.length).toBeGreaterThan(0);
    expect(pids).not.toContain(process.pid);
    expect(Math.max(...pids)).toBeLessThan(20);
    expect(result.output).toContain(`/proc/${process.pid}/environ: No such file or directory`);
  });

  test("the command works as it would outside: cwd, the project and files outside it, /tmp, exit codes, stdout and stderr in order", async () => {
    const { ctx, root, dir } = sandboxed();
    writeFileSync(join(dir, "outside.txt"), "from outside\n");
    const tmp = join("/tmp", `lembas-sandbox-${process.pid}-${Date.now()}`);
    const command = `pwd; echo made > made.txt; cat ${dir}/outside.txt; echo t > ${tmp} && cat ${tmp} && rm ${tmp}; id -u; echo err >&2; exit 3`;
    const result = await run(bashTool, { command }, ctx);
    expect(result.output).toBe(`${root}\nfrom outside\nt\n${process.getuid?.()}\nerr\n\nExit code 3.`);
    expect(result.meta).toEqual({ exitCode: 3 });
    expect(readFileSync(join(root, "made.txt"), "utf8")).toBe("made\n");
  });

  test("on timeout the command gets SIGTERM and its grace period: what it prints while it cleans up is kept", async () => {
    const { ctx } = sandboxed();
    const command = "trap 'echo cleaning; sleep 0.3; echo cleaned; exit 0' TERM; echo started; sleep 1000 & wait";
    const result = await run(bashTool, { command, timeout: 300 }, ctx);
    expect(result.output).toStartWith("started\ncleaning\ncleaned\n\nThe command timed out after 0.3 s");
  });

  test("cancelling kills the whole group, grandchildren too", async () => {
    const controller = new AbortController();
    const { ctx } = sandboxed({ signal: controller.signal });
    const marker = uniqueSleep();
    const pending = run(bashTool, { command: `sleep ${marker} & bash -c 'sleep ${marker} & wait' & echo up; wait` }, ctx);
    expect(await waitUntil(() => pidsWith(marker).length === 2)).toBe(true);
    controller.abort();
    const result = await pending;
    expect(result.output).toContain("The command was cancelled: it and every process it started were stopped.");
    expect(await waitUntil(() => pidsWith(marker).length === 0)).toBe(true);
  });

  test("a command ignoring SIGTERM is killed after the grace period, its children too", async () => {
    const { ctx } = sandboxed();
    const marker = uniqueSleep();
    // It never ends by itself: without the SIGKILL after the grace it would time the test out.
    const result = await run(bashTool, { command: `trap '' TERM; sleep ${marker} & while true; do sleep 0.05; done`, timeout: 200 }, ctx);
    expect(result.output).toContain("timed out after 0.2 s");
    expect(await waitUntil(() => pidsWith(marker).length === 0)).toBe(true);
  });

  test("a background process is stopped when the command ends, as outside the sandbox", async () => {
    const { ctx } = sandboxed();
    const marker = uniqueSleep();
    const result = await run(bashTool, { command: `sleep ${marker} >/dev/null 2>&1 & echo started` }, ctx);
    expect(result.output).toStartWith("started\n\nProcesses it left running in the background were stopped");
    expect(await waitUntil(() => pidsWith(marker).length === 0)).toBe(true);
  });

  test("a background job in the sandbox runs until it is stopped, its whole group with it", async () => {
    const jobs = new Jobs();
    const { ctx } = makeContext({ hidden: [tempDir()], jobs });
    const marker = uniqueSleep();
    const start = await run(bashTool, { command: `sleep ${marker} & echo up; wait`, run_in_background: true }, ctx);
    expect(start.output).toContain("up");
    expect(await waitUntil(() => pidsWith(marker).length === 1)).toBe(true);
    await jobs.stopAll();
    expect(await waitUntil(() => pidsWith(marker).length === 0)).toBe(true);
  });

  test("a project holding the state dir (a session rooted at ~) is sandboxed: the dir is empty to its commands, the rest of the project is not", async () => {
    const root = tempDir();
    const state = join(root, ".local", "state", "lembas");
    mkdirSync(state, { recursive: true });
    writeFileSync(join(state, "lembas.db"), "the-device-token");
    writeFileSync(join(root, "notes.txt"), "mine\n");
    const { ctx } = makeContext({ root, hidden: [state] });
    const result = await run(bashTool, { command: "cat .local/state/lembas/lembas.db; ls -A .local/state/lembas; cat notes.txt" }, ctx);
    expect(result.output).toBe(`cat: .local/state/lembas/lembas.db: No such file or directory\nmine`);
  });

  test("a project inside the state dir is read and written as ever, while the rest of the state dir stays hidden", async () => {
    const state = tempDir();
    const root = join(state, "worktrees", "p");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(state, "lembas.db"), "the-device-token");
    writeFileSync(join(root, "a.txt"), "in the project\n");
    const { ctx } = makeContext({ root, hidden: [state] });
    const result = await run(bashTool, { command: `cat a.txt; echo made > b.txt; cat ${state}/lembas.db; ls -A ${state}` }, ctx);
    expect(result.output).toBe(`in the project\ncat: ${state}/lembas.db: No such file or directory\nworktrees`);
    expect(readFileSync(join(root, "b.txt"), "utf8")).toBe("made\n");
  });

  test("a project that is the state dir itself (a session rooted there) sees it empty: the database stays out of reach", async () => {
    const state = tempDir();
    writeFileSync(join(state, "lembas.db"), "the-device-token");
    const { ctx } = makeContext({ root: state, hidden: [state, tempDir()] });
    const result = await run(bashTool, { command: `cat lembas.db ${state}/lembas.db; ls -A; pwd` }, ctx);
    expect(result.output).not.toContain("the-device-token");
    expect(result.output).toStartWith(`cat: lembas.db: No such file or directory\ncat: ${state}/lembas.db: No such file or directory\n${state}`);
  });

  test("a state dir given through a symlink, with a trailing slash, is hidden by its real path and by the given one", async () => {
    const dir = tempDir();
    const state = join(dir, "real-state");
    mkdirSync(state);
    writeFileSync(join(state, "lembas.db"), "the-device-token");
    symlinkSync(state, join(dir, "link"));
    const { ctx } = makeContext({ root: tempDir(), hidden: [`${join(dir, "link")}/`] });
    const result = await run(bashTool, { command: `cat ${dir}/link/lembas.db ${state}/lembas.db 2>&1 | grep -c 'No such file'` }, ctx);
    expect(result.output).toBe("2");
  });
});

const asRoot = process.getuid?.() === 0;
const python = tool("python3", "python3", "the sandbox's file handle and session bus tests");
if (bwrap && !asRoot) console.warn("SKIPPED: the sandbox tests for root need to run as root");

describe.skipIf(!bwrap || !asRoot)("run as root, the command cannot take the sandbox apart", () => {
  test("unmounting the hidden dir is refused, so the database stays out of reach", async () => {
    const { ctx, state } = sandboxed();
    const result = await run(bashTool, { command: `umount ${state}; umount -l ${state}; cat ${state}/lembas.db` }, ctx);
    expect(result.output).not.toContain("the-device-token");
    expect(result.output).toContain(`cat: ${state}/lembas.db: No such file or directory`);
  });

  test("nor is the database reached through /proc/1/root or /proc/self/root", async () => {
    const { ctx, state } = sandboxed();
    const result = await run(bashTool, { command: `cat /proc/1/root${state}/lembas.db /proc/self/root${state}/lembas.db` }, ctx);
    expect(result.output).not.toContain("the-device-token");
    expect(result.output).toContain(`cat: /proc/1/root${state}/lembas.db: No such file or directory`);
  });

  test.skipIf(!python)("a file handle taken outside is refused inside (open_by_handle_at reaches past any mount)", async () => {
    const { ctx, state, dir } = sandboxed();
    const script = join(dir, "handle.py");
    writeFileSync(script, HANDLE_PY);
    const handle = Bun.spawnSync([python ?? "", script, "get", join(state, "lembas.db")]).stdout.toString().trim();
    if (!/^\d+ [0-9a-f]+$/.test(handle)) {
      console.warn("SKIPPED in part: the temp dir's filesystem gives no file handles, so there is nothing to refuse");
      return;
    }
    const result = await run(bashTool, { command: `python3 ${script} open ${handle}` }, ctx);
    expect(result.output).not.toContain("the-device-token");
    expect(result.output).toContain("refused: Operation not permitted");
  });

  test("/proc/sys and /sys are read-only (a core_pattern or uevent helper would run outside), /dev has no disks", async () => {
    const { ctx } = sandboxed();
    const sysFile = writableSysFile();
    const command = `[ -w /proc/sys/kernel/core_pattern ] && echo sysctl writable; ${sysFile ? `[ -w ${sysFile} ] && echo sysfs writable; ` : ""}ls /dev`;
    const result = await run(bashTool, { command }, ctx);
    expect(result.output).not.toContain("writable");
    expect(result.output.split("\n")).toEqual(expect.arrayContaining(["null", "zero", "urandom", "shm", "pts"]));
    expect(result.output).not.toMatch(/^(sd|vd|nvme|xvd|loop|dm-)/m);
  });

  test("root's /dev has the host's character devices (FUSE, TUN, serial ports) but no disk, nor /dev/mem, /dev/kmem or /dev/port", async () => {
    const { ctx } = sandboxed();
    const wanted = ["/dev/fuse", "/dev/net/tun", "/dev/ttyS0", "/dev/kvm"].filter((path) => existsSync(path));
    const probe = [...wanted, "/dev/mem", "/dev/kmem", "/dev/port"].join(" ");
    const result = await run(bashTool, { command: `find /dev -type b 2>/dev/null; for d in ${probe}; do [ -c $d ] && echo $d; done; true` }, ctx);
    expect(result.output.split("\n").filter(Boolean)).toEqual(wanted);
  });

  test("only character devices are passed, or dirs of nothing else; a symlink passed itself is not (bwrap would pass its target)", () => {
    const dev = tempDir();
    const node = (path: string, type: "b" | "c") => Bun.spawnSync(["mknod", join(dev, path), type, type === "b" ? "7" : "1", type === "b" ? "0" : "3"]).exitCode === 0;
    mkdirSync(join(dev, "snd", "by-path"), { recursive: true });
    mkdirSync(join(dev, "dri"));
    mkdirSync(join(dev, "bus", "usb", "001"), { recursive: true });
    const made = [node("ttyUSB0", "c"), node("ttyBAD", "b"), node("fuse", "c"), node("mem", "c"), node("snd/controlC0", "c"), node("dri/card0", "c"), node("dri/disk", "b"), node("bus/usb/001/001", "c")];
    if (made.includes(false)) throw new Error("mknod failed");
    symlinkSync("../controlC0", join(dev, "snd", "by-path", "pci-0"));
    symlinkSync("ttyBAD", join(dev, "video0"));
    expect(passedDevices(dev)).toEqual(["ttyUSB0", "bus/usb", "snd", "fuse"].map((name) => join(dev, name)));
  });

  test("root still works on files that are not its own", async () => {
    const { ctx, root } = sandboxed();
    writeFileSync(join(root, "theirs.txt"), "theirs\n");
    chmodSync(join(root, "theirs.txt"), 0o644);
    Bun.spawnSync(["chown", "65534:65534", join(root, "theirs.txt"), root]);
    const result = await run(bashTool, { command: "echo more >> theirs.txt && touch new.txt && ls -n new.txt | awk '{print $3}'" }, ctx);
    expect(result.output).toBe("0");
    expect(readFileSync(join(root, "theirs.txt"), "utf8")).toBe("theirs\nmore\n");
  });
});

const setpriv = tool("setpriv", "util-linux", "the sandbox tests as a user other than root");
const SANDBOX = join(import.meta.dir, "../../src/tools/sandbox.ts");

describe.skipIf(!bwrap || !asRoot || !setpriv)("run as a user other than root", () => {
  test("/dev is the host's, so FUSE, TUN, serial ports and the like work as outside", () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, "state"));
    const wanted = ["/dev/fuse", "/dev/net/tun", "/dev/ttyS0", "/dev/kvm", "/dev/snd", "/dev/bus/usb"].filter((path) => existsSync(path));
    const script = join(dir, "probe.ts");
    writeFileSync(
      script,
      [
        `import { planFor } from ${JSON.stringify(SANDBOX)};`,
        `const plan = planFor([${JSON.stringify(join(dir, "state"))}], ${JSON.stringify(dir)});`,
        `if (plan.kind === "none") throw new Error(plan.why);`,
        `const command = "id -u; for d in ${wanted.join(" ")}; do [ -e $d ] && echo $d; done";`,
        `const proc = Bun.spawnSync(plan.argv(["/bin/sh", "-c", command], "/"), { stderr: "inherit" });`,
        "process.stdout.write(proc.stdout.toString());",
      ].join("\n"),
    );
    chmodSync(script, 0o644);
    const proc = Bun.spawnSync([setpriv ?? "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, script], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
    });
    expect({ err: proc.stderr.toString(), out: proc.stdout.toString() }).toEqual({ err: "", out: ["65534", ...wanted, ""].join("\n") });
  });
});

/** `get PATH` prints a file's handle; `open TYPE HEX` opens the file by it and prints what it reads. */
const HANDLE_PY = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
class Handle(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint), ("type", ctypes.c_int), ("bytes", ctypes.c_ubyte * 128)]
h = Handle()
if sys.argv[1] == "get":
    h.size = 128
    mount = ctypes.c_int()
    if libc.name_to_handle_at(-100, sys.argv[2].encode(), ctypes.byref(h), ctypes.byref(mount), 0) != 0: sys.exit("no handle")
    print(h.type, bytes(h.bytes[:h.size]).hex())
else:
    data = bytes.fromhex(sys.argv[3])
    h.size, h.type = len(data), int(sys.argv[2])
    ctypes.memmove(h.bytes, data, len(data))
    fd = libc.open_by_handle_at(os.open("/", os.O_RDONLY), ctypes.byref(h), os.O_RDONLY)
    print(os.read(fd, 100).decode() if fd >= 0 else "refused: " + os.strerror(ctypes.get_errno()))
`;
import { bwrapSandbox, tool } from "../support/tools.ts";

/** A file under /sys/kernel that root may write to outside the sandbox, if this kernel has one. */
function writableSysFile(): string | null {
  for (const name of ["uevent_helper", "mm/transparent_hugepage/enabled", "mm/ksm/run", "profiling"]) {
    const path = `/sys/kernel/${name}`;
    try {
      accessSync(path, constants.W_OK);
      return path;
    } catch {
      // not on this kernel, or not writable here
    }
  }
  return null;
}

describe("when the command runs without the sandbox", () => {
  test("a bwrap that cannot start (no user namespaces) is found broken, and commands run without it", async () => {
    const bin = tempDir();
    writeFileSync(join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
    chmodSync(join(bin, "bwrap"), 0o755);
    const broken = findSandbox({ PATH: bin, platform: "linux" });
    expect(broken).toEqual({ kind: "none", why: "bwrap could not start a sandbox (bwrap: No permissions to create new namespace)", broken: true });
    const state = tempDir();
    expect(planFor([state], tempDir(), broken)).toEqual({ kind: "none", why: broken.kind === "none" ? broken.why : "", fallback: true });
  });

  test("where bwrap cannot start, the first command's live output and its result say so, for the person and the model", async () => {
    const bin = tempDir();
    writeFileSync(join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
    chmodSync(join(bin, "bwrap"), 0o755);
    const state = tempDir();
    writeFileSync(join(state, "lembas.db"), "db");
    const script = [
      `import { bashTool } from ${JSON.stringify(join(import.meta.dir, "../../src/tools/bash.ts"))};`,
      `import { makeContext, run } from ${JSON.stringify(join(import.meta.dir, "context.ts"))};`,
      `const { ctx, rec } = makeContext({ hidden: [${JSON.stringify(state)}] });`,
      `const first = await run(bashTool, { command: "cat ${state}/lembas.db" }, ctx);`,
      `const second = await run(bashTool, { command: "echo again" }, ctx);`,
      "console.log(JSON.stringify({ first: first.output, second: second.output, progress: rec.progress.join('') }));",
    ].join("\n");
    const proc = Bun.spawnSync([process.execPath, "-e", script], { env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` } });
    const seen = JSON.parse(proc.stdout.toString()) as { first: string; second: string; progress: string };
    const said = "Commands run without the sandbox (bwrap could not start a sandbox (bwrap: No permissions to create new namespace)): they can read lembas's config and state dirs, the device tokens too.";
    expect(seen.first).toBe(`db\n\n${said}`);
    expect(seen.progress).toStartWith(`${said}\n`);
    expect(seen.second).toBe("again");
  });

  test("no bwrap at all: no sandbox, nothing said per command (lembas doctor says it)", () => {
    const none = findSandbox({ PATH: tempDir(), platform: "linux" });
    expect(none).toEqual({ kind: "none", why: "bwrap (bubblewrap) is not installed", broken: false });
    expect(planFor([tempDir()], tempDir(), none)).toMatchObject({ kind: "none", fallback: false });
  });

  test("nothing to hide: no sandbox", () => {
    expect(planFor([], tempDir())).toMatchObject({ kind: "none", fallback: false });
    expect(planFor(["/nonexistent/lembas/state"], tempDir())).toMatchObject({ kind: "none", fallback: false });
  });
});

const NONE = { dirs: [], sockets: [], unset: [] };

describe("what the command sees, in order", () => {
  test("the hidden dirs that hold the project go first, then the project is put back, then the other hidden dirs", () => {
    expect(layers(["/s", "/p/.cfg"], "/p")).toEqual([{ hide: "/s" }, { hide: "/p/.cfg" }]);
    expect(layers(["/h/.local/state/lembas", "/h/.local/state"], "/h/.local/state/lembas/wt/p")).toEqual([
      { hide: "/h/.local/state" },
      { hide: "/h/.local/state/lembas" },
      { keep: "/h/.local/state/lembas/wt/p" },
    ]);
    expect(layers(["/h/.config/lembas", "/h/.local/state/lembas"], "/h/.local/state/lembas")).toEqual([{ hide: "/h/.config/lembas" }, { hide: "/h/.local/state/lembas" }]);
    expect(layers(["/h/.local/state", "/h/.local/state/lembas"], "/h/.local/state/lembas")).toEqual([{ hide: "/h/.local/state" }, { hide: "/h/.local/state/lembas" }]);
  });

  test("bwrap binds the project back after the tmpfs over the dir that holds it; root gets no capability that unmounts", () => {
    const args = bwrapArgs([{ hide: "/s" }, { keep: "/s/p" }], "/s/p", { root: true, devices: [], managers: NONE, modes: false });
    expect(args.join(" ")).toContain("--tmpfs /s --bind /s/p /s/p");
    expect(args.join(" ")).toContain("--dev /dev");
    expect(args).not.toContain("--dev-bind");
    expect(args.join(" ")).toContain("--cap-drop ALL");
    expect(args).not.toContain("CAP_SYS_ADMIN");
    expect(args).not.toContain("CAP_DAC_READ_SEARCH");
    expect(bwrapArgs([], "/", { root: false, devices: [], managers: NONE, modes: false })).not.toContain("--cap-add");
    expect(bwrapArgs([], "/", { root: false, devices: [], managers: NONE, modes: false }).join(" ")).toContain("--dev-bind /dev /dev");
    expect(bwrapArgs([], "/", { root: false, devices: [], managers: NONE, modes: false })).not.toContain("--dev");
    expect(bwrapArgs([], "/", { root: true, devices: ["/dev/fuse"], managers: NONE, modes: false }).join(" ")).toContain("--dev /dev --bind-try /dev/shm /dev/shm --dev-bind-try /dev/fuse /dev/fuse");
  });
});

describe("the service managers that would run a command outside the sandbox", () => {
  test("the user's systemd dir and session bus, at XDG_RUNTIME_DIR and at /run/user/<uid>, and for root the system's too, where they are", () => {
    const run = tempDir();
    const xdg = tempDir();
    const user = join(run, "user", String(process.getuid?.()));
    for (const dir of [join(xdg, "systemd"), join(user, "systemd"), join(run, "systemd"), join(run, "dbus")]) mkdirSync(dir, { recursive: true });
    for (const socket of [join(xdg, "bus"), join(user, "bus"), join(run, "systemd", "private"), join(run, "dbus", "system_bus_socket")]) writeFileSync(socket, "");
    expect(serviceManagers({ XDG_RUNTIME_DIR: xdg }, false, run)).toEqual({ dirs: [join(xdg, "systemd"), join(user, "systemd")], sockets: [join(xdg, "bus"), join(user, "bus")], unset: [] });
    expect(serviceManagers({ XDG_RUNTIME_DIR: user }, true, run)).toEqual({
      dirs: [join(user, "systemd")],
      sockets: [join(user, "bus"), join(run, "systemd", "private"), join(run, "dbus", "system_bus_socket")],
      unset: [],
    });
    expect(serviceManagers({ XDG_RUNTIME_DIR: tempDir() }, true, tempDir())).toEqual({ dirs: [], sockets: [], unset: [] });
  });

  test("bwrap hides their dirs and covers their sockets with /dev/null", () => {
    const args = bwrapArgs([], "/", { root: false, devices: [], managers: { dirs: ["/r/systemd"], sockets: ["/r/bus"], unset: [] }, modes: false }).join(" ");
    expect(args).toContain("--tmpfs /r/systemd --ro-bind /dev/null /r/bus");
  });

  test.skipIf(!bwrap || !python)("the session bus and the user's systemd cannot be reached from the command", async () => {
    const xdg = tempDir();
    mkdirSync(join(xdg, "systemd"));
    const servers = [join(xdg, "bus"), join(xdg, "systemd", "private")].map((unix) => Bun.listen({ unix, socket: { data() {} } }));
    try {
      const state = tempDir();
      const { ctx } = makeContext({ root: tempDir(), hidden: [state], env: { PATH: process.env.PATH ?? "/usr/bin:/bin", XDG_RUNTIME_DIR: xdg } });
      const command = `python3 -c "${CONNECT_PY}" $XDG_RUNTIME_DIR/bus $XDG_RUNTIME_DIR/systemd/private; ls -A $XDG_RUNTIME_DIR/systemd`;
      const result = await run(bashTool, { command }, ctx);
      expect(result.output).toBe(`${xdg}/bus ConnectionRefusedError\n${xdg}/systemd/private FileNotFoundError`);
    } finally {
      for (const server of servers) server.stop(true);
    }
  });
});

/** Connects to each unix socket named and says how it went. */
const CONNECT_PY = [
  "import socket, sys",
  "for path in sys.argv[1:]:",
  "    s = socket.socket(socket.AF_UNIX)",
  "    try: s.connect(path); print(path, 'connected')",
  "    except OSError as e: print(path, type(e).__name__)",
].join("\n");

describe("macOS: the sandbox-exec profile", () => {
  test("allows everything but reading or writing under the hidden dirs, quoting them as SBPL strings", () => {
    expect(seatbeltProfile([{ hide: "/Users/me/.config/lembas" }, { hide: '/Users/me/odd "dir"\\x' }])).toBe(
      [
        "(version 1)",
        "(allow default)",
        '(deny file-read* file-write* (subpath "/Users/me/.config/lembas"))',
        '(deny file-read* file-write* (subpath "/Users/me/odd \\"dir\\"\\\\x"))',
      ].join("\n"),
    );
    expect(seatbeltProfile([])).toBe("(version 1)\n(allow default)");
  });

  test("a project inside a hidden dir is allowed again after that dir is denied", () => {
    expect(seatbeltProfile(layers(["/Users/me/.local/state/lembas"], "/Users/me/.local/state/lembas/p"))).toBe(
      [
        "(version 1)",
        "(allow default)",
        '(deny file-read* file-write* (subpath "/Users/me/.local/state/lembas"))',
        '(allow file-read* file-write* (subpath "/Users/me/.local/state/lembas/p"))',
      ].join("\n"),
    );
  });

  test("a hidden file is denied as itself, after the dirs", () => {
    const state = tempDir();
    const file = join(tempDir(), "creds.txt");
    writeFileSync(file, "secret");
    const plan = planFor([file, state], tempDir(), { kind: "sandbox-exec", path: "/usr/bin/sandbox-exec" });
    if (plan.kind === "none") throw new Error(plan.why);
    expect(plan.argv(["ls"], "/p")[2]).toBe(seatbeltProfile([{ hide: realpathSync(state) }, { hideFile: realpathSync(file) }]));
    expect(seatbeltProfile([{ hideFile: "/p/creds.txt" }])).toContain('(deny file-read* file-write* (literal "/p/creds.txt"))');
  });

  test("sandbox-exec wraps the command with that profile", () => {
    const state = tempDir();
    const plan = planFor([state], tempDir(), { kind: "sandbox-exec", path: "/usr/bin/sandbox-exec" });
    if (plan.kind === "none") throw new Error(plan.why);
    expect(plan.argv(["/bin/bash", "-c", "ls"], "/p")).toEqual(["/usr/bin/sandbox-exec", "-p", seatbeltProfile([{ hide: state }]), "/bin/bash", "-c", "ls"]);
  });
});
