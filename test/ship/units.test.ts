import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  LAUNCHD_LABEL,
  type ServiceSpec,
  launchdPlist,
  launchdPlistPath,
  serveCommand,
  serviceSpec,
  systemdUnit,
  systemdUnitPath,
} from "../../src/service/units.ts";
import { tool } from "../support/tools.ts";

const spec: ServiceSpec = {
  command: ["/home/me/.local/bin/lembas", "serve"],
  env: { PATH: "/usr/local/bin:/usr/bin:/bin", LEMBAS_STATE_DIR: "/home/me/state" },
  logFile: "/home/me/state/logs/lembas.log",
  outputFile: "/home/me/state/logs/output.log",
};

test("the systemd unit runs `<binary> serve`, restarts on failure with limits, and leaves its output to the journal", () => {
  const unit = systemdUnit(spec, 252);
  expect(unit).toContain("\nExecStart=/home/me/.local/bin/lembas serve\n");
  expect(unit).toContain("\nRestart=on-failure\nRestartSec=2\n");
  expect(unit).toContain("\nStartLimitIntervalSec=300\nStartLimitBurst=10\n");
  expect(unit).toContain("\nEnvironment=PATH=/usr/local/bin:/usr/bin:/bin\nEnvironment=LEMBAS_STATE_DIR=/home/me/state\n");
  expect(unit).not.toContain("StandardOutput");
  expect(unit).toContain("\n[Install]\nWantedBy=default.target\n");
  expect(unit).not.toContain("RestartSteps");
});

test("from systemd 254 on the restart delay backs off", () => {
  const unit = systemdUnit(spec, 255);
  expect(unit).toContain("\nRestartSec=2\nRestartSteps=6\nRestartMaxDelaySec=120\n");
});

test("spaces, quotes, % and $ in paths are escaped for systemd", () => {
  const odd: ServiceSpec = {
    command: ['/opt/my apps/le"mbas', "serve"],
    env: { LEMBAS_STATE_DIR: "/data/100%/$HOME" },
    logFile: "/data/100%/logs/lembas.log",
    outputFile: "/data/100%/logs/output.log",
  };
  const unit = systemdUnit(odd);
  expect(unit).toContain('\nExecStart="/opt/my apps/le\\"mbas" serve\n');
  expect(unit).toContain('\nEnvironment="LEMBAS_STATE_DIR=/data/100%%/$HOME"\n');
  expect(systemdUnit({ ...odd, command: ["/bin/le$mbas", "serve"] })).toContain('\nExecStart="/bin/le$$mbas" serve\n');
});

test("a relative program or a line break in a value is refused with a sentence", () => {
  expect(() => systemdUnit({ ...spec, command: ["lembas", "serve"] })).toThrow("must be an absolute path");
  expect(() => systemdUnit({ ...spec, env: { X: "a\nb" } })).toThrow("cannot hold a line break");
  expect(() => launchdPlist({ ...spec, command: ["lembas", "serve"] })).toThrow("must be an absolute path");
});

const analyzer = tool("systemd-analyze", "systemd", "the check of the systemd unit");

test.skipIf(!analyzer)("systemd-analyze verify accepts the unit (where systemd is installed)", () => {
  const analyze = analyzer ?? "systemd-analyze";
  const dir = mkdtempSync(join(tmpdir(), "lembas-unit-"));
  try {
    const file = join(dir, "lembas.service");
    // A program path with a space: verify finds it only if the quoting is read as meant.
    const program = join(dir, "my bin", "lembas");
    mkdirSync(join(dir, "my bin"));
    symlinkSync(process.execPath, program);
    const state = join(dir, "state 100%");
    const logs = join(state, "logs");
    writeFileSync(file, systemdUnit({ command: [program, "serve"], env: { LEMBAS_STATE_DIR: state }, logFile: join(logs, "lembas.log"), outputFile: join(logs, "output.log") }, 252));
    const result = Bun.spawnSync([analyze, "verify", file], { stderr: "pipe", stdout: "pipe" });
    expect(result.stderr.toString()).toBe("");
    expect(result.exitCode).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the LaunchAgent runs at load, is kept alive after a failure, and puts its output into the state dir's logs/", () => {
  const plist = launchdPlist({ ...spec, env: { PATH: "/usr/bin", LEMBAS_CONFIG_DIR: "/Users/me/a&b <c>" } });
  expect(plist).toStartWith('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist');
  expect(plist).toContain(`<key>Label</key>\n  <string>${LAUNCHD_LABEL}</string>`);
  expect(plist).toContain("<key>ProgramArguments</key>\n  <array>\n    <string>/home/me/.local/bin/lembas</string>\n    <string>serve</string>\n  </array>");
  expect(plist).toContain("<key>RunAtLoad</key>\n  <true/>");
  expect(plist).toContain("<key>KeepAlive</key>\n  <dict>\n    <key>SuccessfulExit</key>\n    <false/>\n  </dict>");
  expect(plist).toContain("<key>LEMBAS_CONFIG_DIR</key>\n    <string>/Users/me/a&amp;b &lt;c&gt;</string>");
  expect(plist).toContain("<key>StandardOutPath</key>\n  <string>/home/me/state/logs/output.log</string>");
  expect(plist).toContain("<key>StandardErrorPath</key>\n  <string>/home/me/state/logs/output.log</string>");
  const plutil = Bun.which("plutil");
  if (plutil) expect(Bun.spawnSync([plutil, "-lint", "-"], { stdin: new Blob([plist]) }).exitCode).toBe(0);
});

test("unit files go under $HOME, and $XDG_CONFIG_HOME for systemd", () => {
  expect(systemdUnitPath({}, "/home/me")).toBe("/home/me/.config/systemd/user/lembas.service");
  expect(systemdUnitPath({ XDG_CONFIG_HOME: "/x/cfg" }, "/home/me")).toBe("/x/cfg/systemd/user/lembas.service");
  expect(launchdPlistPath("/Users/me")).toBe(`/Users/me/Library/LaunchAgents/${LAUNCHD_LABEL}.plist`);
});

test("the spec pins the config and state dirs only when they are not the defaults, and carries PATH", () => {
  const plain = serviceSpec({ HOME: "/home/me", PATH: "/usr/bin" }, ["/bin/lembas", "serve"]);
  expect(plain).toEqual({
    command: ["/bin/lembas", "serve"],
    env: { PATH: "/usr/bin" },
    logFile: "/home/me/.local/state/lembas/logs/lembas.log",
    outputFile: "/home/me/.local/state/lembas/logs/output.log",
  });
  const moved = serviceSpec({ HOME: "/home/me", PATH: "/usr/bin", XDG_STATE_HOME: "/var/me", LEMBAS_CONFIG_DIR: "/etc/me" }, ["/bin/lembas", "serve"]);
  expect(moved.env).toEqual({ PATH: "/usr/bin", LEMBAS_CONFIG_DIR: "/etc/me", LEMBAS_STATE_DIR: "/var/me/lembas" });
  expect(moved.logFile).toBe("/var/me/lembas/logs/lembas.log");
});

test("the service command is the binary itself when compiled, else Bun and the entry script", () => {
  expect(serveCommand("/home/me/.local/bin/lembas", "/$bunfs/root/lembas")).toEqual(["/home/me/.local/bin/lembas", "serve"]);
  expect(serveCommand("/usr/bin/bun", "/src/lembas/src/index.ts")).toEqual(["/usr/bin/bun", "/src/lembas/src/index.ts", "serve"]);
});
