import { afterEach, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Device, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { runLembas } from "../support/run.ts";

let d: Device;
afterEach(() => d.close());

/**
 * A stand-in for the person's bash: as a login shell it reads a profile that prints noise and
 * exports a variable (as nvm's lines would), then runs the -c command; `before` runs first.
 */
function fakeShell(dir: string, before = ""): string {
  const bin = join(dir, "shellbin");
  mkdirSync(bin, { recursive: true });
  const path = join(bin, "bash");
  writeFileSync(
    path,
    `#!/bin/bash
login=no; cmd=
while [ $# -gt 0 ]; do case "$1" in -l) login=yes ;; -c) cmd="$2"; shift ;; esac; shift; done
${before}
if [ "$login" = yes ]; then
  echo "Welcome! (an rc file's noise)"
  export FROM_LOGIN_PROFILE=nvm-node-20
  export SHLVL=7
fi
eval "$cmd"
echo "noise after"
`,
  );
  chmodSync(path, 0o755);
  return path;
}

async function device(): Promise<Device> {
  const made = await startDevice();
  writeFileSync(
    join(made.box.configDir, "config.yaml"),
    `model: test/test-model\nconnections:\n  test:\n    base_url: ${made.model.url}\nremote:\n  roots: [${made.work}]\n  max_mode: auto\nembedding: null\n`,
  );
  return made;
}

async function runCommand(command: string): Promise<void> {
  const link = await d.serve({ env: { SHELL: shell } });
  d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command, description: "env" } }] }), step({ text: "ok" }));
  const { sessionId } = (await link.request("session/new", { cwd: d.project, mcpServers: [], _meta: { mode: "auto" } })) as { sessionId: string };
  await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] }, 60_000);
}

let shell = "";
const logFile = () => readFileSync(join(d.box.stateDir, "logs", "lembas.log"), "utf8");

test("a command a session of lembas serve runs sees what the login profile exports, without the shell's own noise", async () => {
  d = await device();
  shell = fakeShell(d.box.dir);
  await runCommand("echo \"$FROM_LOGIN_PROFILE shlvl=$SHLVL state=$LEMBAS_STATE_DIR\" > seen.txt");
  expect(readFileSync(join(d.project, "seen.txt"), "utf8")).toBe(`nvm-node-20 shlvl=1 state=${d.box.stateDir}\n`);
  const kept = join(d.box.stateDir, "login-env.json");
  expect(statSync(kept).mode & 0o777).toBe(0o600);
  const env = JSON.parse(readFileSync(kept, "utf8")).env as Record<string, string>;
  expect(env.FROM_LOGIN_PROFILE).toBe("nvm-node-20");
  expect(env.SHLVL).toBeUndefined();
  expect(Object.keys(env).some((k) => k.startsWith("LEMBAS_"))).toBe(false);
  expect(logFile()).toContain(`kept ${shell}'s login environment for the sessions' commands`);
}, 60_000);

test("a login shell that hangs: the service falls back to its own environment within the timeout, with one log line", async () => {
  d = await device();
  shell = fakeShell(d.box.dir, "sleep 60");
  const started = Date.now();
  await runCommand("echo \"[$FROM_LOGIN_PROFILE]\" > seen.txt");
  expect(Date.now() - started).toBeLessThan(15_000);
  expect(readFileSync(join(d.project, "seen.txt"), "utf8")).toBe("[]\n");
  const lines = logFile().split("\n").filter((l) => l.includes("login shell"));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(`could not read the login shell's environment (${shell} did not print its environment within 5 s)`);
  expect(existsSync(join(d.box.stateDir, "login-env.json"))).toBe(false);
}, 60_000);

test("a login shell that prints garbage instead of its environment falls back too", async () => {
  d = await device();
  shell = fakeShell(d.box.dir, 'cmd="echo garbage"');
  await runCommand("echo \"[$FROM_LOGIN_PROFILE]\" > seen.txt");
  expect(readFileSync(join(d.project, "seen.txt"), "utf8")).toBe("[]\n");
  expect(logFile()).toContain("printed something other than its environment");
}, 60_000);

test("service install reads the login environment again", async () => {
  d = await device();
  shell = fakeShell(d.box.dir);
  const kept = join(d.box.stateDir, "login-env.json");
  mkdirSync(d.box.stateDir, { recursive: true });
  writeFileSync(kept, JSON.stringify({ capturedAt: "2020-01-01T00:00:00Z", shell, env: { PATH: "/old", FROM_LOGIN_PROFILE: "old" } }));
  const fakeBin = join(d.box.dir, "fakebin");
  mkdirSync(fakeBin);
  writeFileSync(join(fakeBin, "systemctl"), '#!/bin/sh\ncase "$*" in --version) echo "systemd 252" ;; "--user is-active lembas.service") echo inactive; exit 3 ;; esac\n');
  writeFileSync(join(fakeBin, "loginctl"), "#!/bin/sh\necho yes\n");
  chmodSync(join(fakeBin, "systemctl"), 0o755);
  chmodSync(join(fakeBin, "loginctl"), 0o755);
  const result = await runLembas(d.box, ["service", "install"], {
    env: { SHELL: shell, PATH: `${fakeBin}:/usr/bin:/bin`, XDG_CONFIG_HOME: join(d.box.dir, "xdg"), USER: "me" },
  });
  expect(result.stderr).toBe("");
  expect(result.stdout.trimEnd().split("\n").at(-1)).toMatch(new RegExp(`^kept ${shell}'s login environment \\(\\d+ variables\\) for the service's sessions: ${kept}$`));
  expect(JSON.parse(readFileSync(kept, "utf8")).env.FROM_LOGIN_PROFILE).toBe("nvm-node-20");
  expect(statSync(kept).mode & 0o777).toBe(0o600);
}, 60_000);
