import { afterEach, beforeEach, expect, test } from "bun:test";
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startControlServer } from "../../src/service/control.ts";
import { LEMBAS, outputOf, type Sandbox, runLembas, sandbox } from "../support/run.ts";

let box: Sandbox;
let fakeBin: string;
beforeEach(() => {
  box = sandbox();
  fakeBin = join(box.dir, "fakebin");
  mkdirSync(fakeBin);
  // A stand-in for systemd's tools: records every call, keeps the unit's state in a file.
  writeScript(
    "systemctl",
    `echo "$*" >> "$FAKE_DIR/calls"
if [ -n "\${FAKE_FAIL:-}" ] && [ "$2" = "$FAKE_FAIL" ]; then echo "Failed to connect to bus: No medium found" >&2; exit 1; fi
case "$*" in
  --version) echo "systemd 252 (252.39-1)" ;;
  "--user is-active lembas.service") s=$(cat "$FAKE_DIR/unit-state" 2>/dev/null || echo inactive); echo "$s"; [ "$s" = active ] ;;
  "--user enable --now lembas.service") echo active > "$FAKE_DIR/unit-state" ;;
  "--user disable --now lembas.service") echo inactive > "$FAKE_DIR/unit-state" ;;
esac`,
  );
  writeScript("loginctl", 'echo "loginctl $*" >> "$FAKE_DIR/calls"; echo yes');
});
afterEach(() => box.cleanup());

function writeScript(name: string, body: string): void {
  writeFileSync(join(fakeBin, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(fakeBin, name), 0o755);
}

const env = () => ({ PATH: `${fakeBin}:/usr/bin:/bin`, FAKE_DIR: box.dir, XDG_CONFIG_HOME: join(box.dir, "xdg"), USER: "me", SHELL: "/bin/sh" });
const loginEnvCount = () => Object.keys(JSON.parse(readFileSync(join(box.stateDir, "login-env.json"), "utf8")).env).length;
const calls = () => readFileSync(join(box.dir, "calls"), "utf8").trim().split("\n");

test("service install writes the unit under $XDG_CONFIG_HOME and starts it; again restarts it; uninstall twice is fine", async () => {
  const unit = join(box.dir, "xdg", "systemd", "user", "lembas.service");
  const installed = await runLembas(box, ["service", "install"], { env: env() });
  expect(installed.stderr).toBe("");
  expect(installed.code).toBe(0);
  expect(installed.stdout).toBe(
    `wrote ${unit}\nlembas.service is enabled and running; its log: ${join(box.stateDir, "logs", "lembas.log")} (its raw output: journalctl --user -u lembas)\n` +
      `kept /bin/sh's login environment (${loginEnvCount()} variables) for the service's sessions: ${join(box.stateDir, "login-env.json")}\n`,
  );
  const text = readFileSync(unit, "utf8");
  expect(text).toContain(`\nExecStart=${LEMBAS.join(" ")} serve\n`);
  expect(text).toContain(`\nEnvironment=LEMBAS_CONFIG_DIR=${box.configDir}\nEnvironment=LEMBAS_STATE_DIR=${box.stateDir}\n`);
  expect(calls()).toEqual([
    "--version",
    "--user is-active lembas.service",
    "--user daemon-reload",
    "--user enable --now lembas.service",
    "loginctl show-user me --property=Linger --value",
  ]);

  const again = await runLembas(box, ["service", "install"], { env: env() });
  expect(again.stdout).toStartWith(`${unit} is up to date\nlembas.service is enabled and was restarted`);
  expect(calls()).toContain("--user restart lembas.service");

  const removed = await runLembas(box, ["service", "uninstall"], { env: env() });
  expect(removed).toMatchObject({ code: 0, stdout: `stopped and disabled lembas.service\nremoved ${unit}\n` });
  expect(existsSync(unit)).toBe(false);
  expect(await runLembas(box, ["service", "uninstall"], { env: env() })).toMatchObject({ code: 0, stdout: "the lembas service is not installed\n" });
});

test("without systemctl, service install is one line, exit 1, and writes nothing", async () => {
  const result = await runLembas(box, ["service", "install"], { env: { ...env(), PATH: join(box.dir, "empty") } });
  expect(result.code).toBe(1);
  expect(result.stderr.split("\n")[0]).toBe("lembas: systemctl was not found: lembas service needs systemd's user manager here; run lembas serve yourself instead");
  expect(result.stderr).toContain(`\nto run it without a service manager: nohup ${LEMBAS.join(" ")} serve >/dev/null 2>&1 &`);
  expect(existsSync(join(box.dir, "xdg"))).toBe(false);
});

test("a failing systemctl: one line naming the command, the unit it wrote removed (nothing else), and how to run lembas serve by hand", async () => {
  const unitDir = join(box.dir, "xdg", "systemd", "user");
  mkdirSync(unitDir, { recursive: true });
  writeFileSync(join(unitDir, "mine.service"), "[Service]\n");
  const result = await runLembas(box, ["service", "install"], { env: { ...env(), FAKE_FAIL: "daemon-reload" } });
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr.trim().split("\n")).toEqual([
    `lembas: systemctl --user daemon-reload failed: Failed to connect to bus: No medium found (is a systemd user session running?); removed ${join(unitDir, "lembas.service")}`,
    `to run it without a service manager: nohup ${LEMBAS.join(" ")} serve >/dev/null 2>&1 &  (or in a tmux window); its log: ${join(box.stateDir, "logs", "lembas.log")}`,
    "with systemd, loginctl enable-linger me keeps user services running after you log out",
  ]);
  expect(existsSync(join(unitDir, "lembas.service"))).toBe(false);
  expect(readFileSync(join(unitDir, "mine.service"), "utf8")).toBe("[Service]\n");
});

test("a failed install over an installed unit puts the old unit back", async () => {
  const unit = join(box.dir, "xdg", "systemd", "user", "lembas.service");
  expect((await runLembas(box, ["service", "install"], { env: env() })).code).toBe(0);
  const before = readFileSync(unit, "utf8");
  // Another state dir makes another unit; systemd refuses to start it.
  const result = await runLembas(box, ["service", "install"], { env: { ...env(), LEMBAS_STATE_DIR: join(box.dir, "state2"), FAKE_FAIL: "enable" } });
  expect(result.code).toBe(1);
  expect(result.stderr.split("\n")[0]).toEndWith(`; put back the ${unit} that was there`);
  expect(readFileSync(unit, "utf8")).toBe(before);
});

test("service status: not running is exit 3; a running service's links are listed from its control socket", async () => {
  const down = await runLembas(box, ["service", "status"], { env: env() });
  expect(down.code).toBe(3);
  expect(down.stdout.split("\n")).toEqual([
    `unit: not installed (lembas service install puts it at ${join(box.dir, "xdg", "systemd", "user", "lembas.service")})`,
    `service: not running (there is no control socket at ${join(box.stateDir, "service.sock")})`,
    "",
  ]);

  const stop = await startControlServer(join(box.stateDir, "service.sock"), () => ({
    pid: 4242,
    version: "0.1.0",
    startedAt: "2025-06-01T10:00:00.000Z",
    links: [
      { name: "work", url: "https://llembas.example", state: "connected", since: "2025-06-01T10:00:01.000Z", sessions: ["s1", "s2"] },
      { name: "home", url: "https://home.example", state: "waiting", since: "2025-06-01T10:00:02.000Z", sessions: [] },
    ],
    terminals: [{ pid: 777, version: "0.1.0", since: "2025-06-01T10:00:03.000Z" }],
  }));
  try {
    const up = await runLembas(box, ["service", "status"], { env: env() });
    expect(up.code).toBe(0);
    expect(up.stdout.split("\n").slice(1)).toEqual([
      "service: running, pid 4242, lembas 0.1.0, started 2025-06-01T10:00:00.000Z",
      "link work (https://llembas.example): connected since 2025-06-01T10:00:01.000Z, 2 sessions: s1, s2",
      "link home (https://home.example): waiting since 2025-06-01T10:00:02.000Z, no sessions",
      "terminals: 1 connected (pid 777 since 2025-06-01T10:00:03.000Z)",
      "",
    ]);
  } finally {
    await stop();
  }
});

test("service logs prints the log's last lines; with no log it says where it will be", async () => {
  const log = join(box.stateDir, "logs", "lembas.log");
  const missing = await runLembas(box, ["service", "logs"], { env: env() });
  expect(missing).toMatchObject({ code: 1, stderr: `lembas: there is no log at ${log} yet: the service writes it once it runs (lembas service install)\n` });
  mkdirSync(join(box.stateDir, "logs"), { recursive: true });
  writeFileSync(log, Array.from({ length: 100 }, (_, i) => `line ${i + 1}\n`).join(""));
  expect(await runLembas(box, ["service", "logs", "-n", "3"], { env: env() })).toMatchObject({ code: 0, stdout: "line 98\nline 99\nline 100\n" });
  expect((await runLembas(box, ["service", "logs"], { env: env() })).stdout.split("\n").length).toBe(51);
  expect(await runLembas(box, ["service", "logs", "-n", "x"], { env: env() })).toMatchObject({ code: 2, stderr: "lembas: --lines must be a whole number, not x\n" });
});

test("service logs -f prints what is appended until Ctrl-C", async () => {
  const log = join(box.stateDir, "logs", "lembas.log");
  mkdirSync(join(box.stateDir, "logs"), { recursive: true });
  writeFileSync(log, "old 1\nold 2\n");
  const proc = Bun.spawn([...LEMBAS, "service", "logs", "-f", "-n", "1"], { env: { ...box.env, ...env() }, stdout: "pipe", stderr: "pipe" });
  try {
    const { waitFor, seen } = outputOf(proc.stdout);
    await waitFor("old 2\n");
    appendFileSync(log, "new 1\nnew 2\n");
    await waitFor("new 2\n");
    expect(seen()).toBe("old 2\nnew 1\nnew 2\n");
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(0);
  } finally {
    proc.kill("SIGKILL");
  }
});
