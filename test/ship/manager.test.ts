import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serviceManager } from "../../src/service/manager.ts";
import type { CommandResult, CommandRunner } from "../../src/service/runner.ts";
import type { ServiceSpec } from "../../src/service/units.ts";

let dir: string;
let spec: ServiceSpec;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lembas-manager-"));
  const logs = join(dir, "state", "logs");
  spec = { command: ["/opt/lembas", "serve"], env: { PATH: "/usr/bin" }, logFile: join(logs, "lembas.log"), outputFile: join(logs, "output.log") };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A scripted systemctl/loginctl/launchctl: records each call, answers from a small state machine. */
function scripted(opts: { missing?: boolean; failOn?: string; failed?: boolean; loaded?: boolean } = {}) {
  const calls: string[] = [];
  let active = false;
  let failed = opts.failed ?? false;
  let loaded = opts.loaded ?? false;
  const ok = (stdout = ""): CommandResult => ({ code: 0, stdout, stderr: "" });
  const runner: CommandRunner = async (argv) => {
    const line = argv.join(" ");
    calls.push(line);
    if (opts.missing) return { code: 127, stdout: "", stderr: `${argv[0]}: not found`, missing: true };
    if (opts.failOn && line.includes(opts.failOn)) return { code: 1, stdout: "", stderr: "Failed to connect to bus: No medium found\n" };
    if (line === "systemctl --version") return ok("systemd 255 (255.4-1)\n+PAM +AUDIT\n");
    if (line.endsWith("is-active lembas.service")) {
      return { code: active ? 0 : 3, stdout: active ? "active\n" : failed ? "failed\n" : "inactive\n", stderr: "" };
    }
    if (line.endsWith("reset-failed lembas.service")) failed = false;
    if (line.endsWith("enable --now lembas.service")) active = true;
    if (line.endsWith("disable --now lembas.service")) active = false;
    if (line.startsWith("loginctl")) return ok("no\n");
    if (line.startsWith("launchctl bootout")) {
      const was = loaded;
      loaded = false;
      return was ? ok() : { code: 3, stdout: "", stderr: "Boot-out failed: 3: No such process\n" };
    }
    if (line.startsWith("launchctl bootstrap")) loaded = true;
    if (line.startsWith("launchctl print")) return loaded ? ok("app.llembas.lembas = {\n\tstate = running\n\tpid = 42\n}\n") : { code: 113, stdout: "", stderr: "Could not find service\n" };
    return ok();
  };
  return { runner, calls };
}

const linux = (runner: CommandRunner) => serviceManager({ platform: "linux", env: { HOME: join(dir, "home"), USER: "me" }, runner });
const mac = (runner: CommandRunner) => serviceManager({ platform: "darwin", env: { HOME: join(dir, "home") }, runner, uid: 501, retryDelayMs: 1 });

test("systemd: install writes the unit, reloads, enables and starts it, and says how to keep it running after logout", async () => {
  const { runner, calls } = scripted();
  const manager = linux(runner);
  const lines = await manager.install(spec);
  expect(manager.unitFile).toBe(join(dir, "home", ".config", "systemd", "user", "lembas.service"));
  expect(readFileSync(manager.unitFile, "utf8")).toContain("ExecStart=/opt/lembas serve\nRestart=on-failure\nRestartSec=2\nRestartSteps=6");
  expect(calls).toEqual([
    "systemctl --version",
    "systemctl --user is-active lembas.service",
    "systemctl --user daemon-reload",
    "systemctl --user enable --now lembas.service",
    "loginctl show-user me --property=Linger --value",
  ]);
  expect(lines[0]).toBe(`wrote ${manager.unitFile}`);
  expect(lines[1]).toContain("lembas.service is enabled and running");
  expect(lines[2]).toContain("loginctl enable-linger me");
  expect(await manager.state()).toMatchObject({ installed: true, state: "active", running: true });
});

test("systemd: installing again is idempotent and restarts the running service so the new binary runs", async () => {
  const { runner, calls } = scripted();
  const manager = linux(runner);
  await manager.install(spec);
  calls.length = 0;
  const lines = await manager.install(spec);
  expect(lines[0]).toBe(`${manager.unitFile} is up to date`);
  expect(lines[1]).toContain("was restarted");
  expect(calls).toContain("systemctl --user restart lembas.service");
});

test("systemd: installing a unit that hit its start limit resets it first", async () => {
  const { runner, calls } = scripted({ failed: true });
  await linux(runner).install(spec);
  expect(calls.slice(1, 4)).toEqual([
    "systemctl --user is-active lembas.service",
    "systemctl --user reset-failed lembas.service",
    "systemctl --user daemon-reload",
  ]);
});

test("systemd: uninstall stops, disables and removes; a second uninstall says it is not installed", async () => {
  const { runner, calls } = scripted();
  const manager = linux(runner);
  await manager.install(spec);
  calls.length = 0;
  expect(await manager.uninstall()).toEqual(["stopped and disabled lembas.service", `removed ${manager.unitFile}`]);
  expect(calls).toEqual(["systemctl --user disable --now lembas.service", "systemctl --user daemon-reload"]);
  expect(existsSync(manager.unitFile)).toBe(false);
  expect(await manager.uninstall()).toEqual(["the lembas service is not installed"]);
  expect(await manager.state()).toMatchObject({ installed: false, running: false, state: "inactive" });
});

test("systemd: a missing systemctl is one sentence and nothing is written", async () => {
  const manager = linux(scripted({ missing: true }).runner);
  await expect(manager.install(spec)).rejects.toThrow(/^systemctl was not found: lembas service needs systemd's user manager here; run lembas serve yourself instead$/);
  expect(existsSync(manager.unitFile)).toBe(false);
  expect(await manager.state()).toMatchObject({ running: false, problem: "systemctl was not found" });
});

test("systemd: a failing systemctl names the command and its first line of error", async () => {
  const manager = linux(scripted({ failOn: "daemon-reload" }).runner);
  await expect(manager.install(spec)).rejects.toThrow(
    `systemctl --user daemon-reload failed: Failed to connect to bus: No medium found (is a systemd user session running?); removed ${manager.unitFile}`,
  );
  expect(existsSync(manager.unitFile)).toBe(false);
});

test("systemd: an uninstall systemd refuses keeps the unit and says how to remove it", async () => {
  const good = scripted();
  await linux(good.runner).install(spec);
  const manager = linux(scripted({ failOn: "disable" }).runner);
  await expect(manager.uninstall()).rejects.toThrow("remove it by hand if systemd is not in use here");
  expect(existsSync(manager.unitFile)).toBe(true);
});

test("launchd: install writes the plist and boots it into gui/<uid>; again boots out the old one first", async () => {
  const { runner, calls } = scripted();
  const manager = mac(runner);
  const lines = await manager.install(spec);
  expect(manager.unitFile).toBe(join(dir, "home", "Library", "LaunchAgents", "app.llembas.lembas.plist"));
  expect(readFileSync(manager.unitFile, "utf8")).toContain("<string>/opt/lembas</string>");
  expect(statSync(join(dir, "state", "logs")).mode & 0o777).toBe(0o700);
  expect(calls).toEqual([
    "launchctl enable gui/501/app.llembas.lembas",
    "launchctl bootout gui/501/app.llembas.lembas",
    `launchctl bootstrap gui/501 ${manager.unitFile}`,
  ]);
  expect(lines[1]).toContain("is loaded, running and starts at login");
  expect(await manager.state()).toMatchObject({ installed: true, state: "running", running: true });
  expect((await manager.install(spec))[1]).toContain("was restarted");
});

test("launchd: uninstall boots out and removes, then says it is not installed", async () => {
  const { runner } = scripted();
  const manager = mac(runner);
  await manager.install(spec);
  expect(await manager.uninstall()).toEqual(["stopped app.llembas.lembas", `removed ${manager.unitFile}`]);
  expect(await manager.uninstall()).toEqual(["the lembas service is not installed"]);
  expect(await manager.state()).toMatchObject({ installed: false, state: "not loaded", running: false });
});

test("launchd: a bootstrap that keeps failing is one sentence", async () => {
  const manager = mac(scripted({ failOn: "bootstrap" }).runner);
  await expect(manager.install(spec)).rejects.toThrow(`launchctl bootstrap gui/501 ${manager.unitFile} failed: Failed to connect to bus: No medium found; removed ${manager.unitFile}`);
  expect(existsSync(manager.unitFile)).toBe(false);
});

test("another platform has no service, and says what to do instead", () => {
  expect(() => serviceManager({ platform: "win32", runner: scripted().runner })).toThrow(
    "lembas service supports Linux (systemd) and macOS (launchd), not win32: run lembas serve yourself instead",
  );
});
