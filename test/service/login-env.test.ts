import { afterEach, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Config } from "../../src/config/schema.ts";
import { keptVariables } from "../../src/service/login-env-file.ts";
import { type Device, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { runLembas } from "../support/run.ts";

let d: Device | undefined;
afterEach(async () => {
  await d?.close();
  d = undefined;
});

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
  export GITHUB_TOKEN=ghp-from-the-profile DB_PASSWORD=hunter2 KEPT_TOKEN=passed-on
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
    `model: test/test-model\nconnections:\n  test:\n    base_url: ${made.model.url}\nremote:\n  roots: [${made.work}]\n  max_mode: auto\nembedding: null\ntools:\n  env_passthrough: [KEPT_TOKEN]\n`,
  );
  return made;
}

/** The device of the test under way. */
function dev(): Device {
  if (!d) throw new Error("the test made no device");
  return d;
}

async function runCommand(command: string, env: Record<string, string> = {}): Promise<void> {
  const d = dev();
  const link = await d.serve({ env: { SHELL: shell, ...env } });
  d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command, description: "env" } }] }), step({ text: "ok" }));
  const { sessionId } = (await link.request("session/new", { cwd: d.project, mcpServers: [], _meta: { mode: "auto" } })) as { sessionId: string };
  await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] }, 60_000);
}

let shell = "";
const logFile = () => readFileSync(join(dev().box.stateDir, "logs", "lembas.log"), "utf8");

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

test("the kept environment holds no secret the tools would not get: a secret-named variable is kept only when tools.env_passthrough names it", async () => {
  d = await device();
  shell = fakeShell(d.box.dir);
  await runCommand('echo "[$GITHUB_TOKEN][$DB_PASSWORD][$KEPT_TOKEN]" > seen.txt');
  expect(readFileSync(join(d.project, "seen.txt"), "utf8")).toBe("[][][passed-on]\n");
  const env = JSON.parse(readFileSync(join(d.box.stateDir, "login-env.json"), "utf8")).env as Record<string, string>;
  expect([env.GITHUB_TOKEN, env.DB_PASSWORD, env.KEPT_TOKEN, env.FROM_LOGIN_PROFILE]).toEqual([undefined, undefined, "passed-on", "nvm-node-20"]);
}, 60_000);

test("a kept environment an older lembas wrote with secrets in it loses them when the service starts, and says so", async () => {
  d = await device();
  shell = fakeShell(d.box.dir);
  const kept = join(d.box.stateDir, "login-env.json");
  mkdirSync(d.box.stateDir, { recursive: true });
  writeFileSync(kept, JSON.stringify({ capturedAt: "2020-01-01T00:00:00Z", shell, env: { PATH: "/usr/bin:/bin", AWS_SECRET_ACCESS_KEY: "old-secret", FROM_LOGIN_PROFILE: "old" } }));
  await runCommand('echo "[$AWS_SECRET_ACCESS_KEY][$FROM_LOGIN_PROFILE]" > seen.txt');
  expect(readFileSync(join(d.project, "seen.txt"), "utf8")).toBe("[][old]\n");
  expect(JSON.parse(readFileSync(kept, "utf8")).env).toEqual({ PATH: "/usr/bin:/bin", FROM_LOGIN_PROFILE: "old" });
  expect(logFile()).toContain(`dropped AWS_SECRET_ACCESS_KEY from ${kept}: no tool of the sessions gets them`);
}, 60_000);

test("a secret an MCP server of config.yaml reads (${VAR}) is kept for it; a connection's key is not", () => {
  const rules = Config.parse({
    connections: { openai: { base_url: "https://api.openai.com/v1", api_key_env: "OPENAI_API_KEY" } },
    mcp: { github: { command: "github-mcp", env: { GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}" } } },
  });
  const env = { PATH: "/bin", GITHUB_TOKEN: "ghp", OPENAI_API_KEY: "sk", NPM_TOKEN: "npm" };
  expect(keptVariables(env, rules)).toEqual({ PATH: "/bin", GITHUB_TOKEN: "ghp" });
});

test("a login shell that hangs: the service falls back to its own environment within the timeout, with one log line", async () => {
  d = await device();
  shell = fakeShell(d.box.dir, "sleep 60");
  // The shell's bound (5 s) cut to 1 s, so that the test does not sit it out; the log line says it was reached.
  await runCommand("echo \"[$FROM_LOGIN_PROFILE]\" > seen.txt", { LEMBAS_TEST_LOGIN_SHELL_MS: "1000" });
  expect(readFileSync(join(d.project, "seen.txt"), "utf8")).toBe("[]\n");
  const lines = logFile().split("\n").filter((l) => l.includes("login shell"));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(`could not read the login shell's environment (${shell} did not print its environment within 1 s)`);
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

test("a HOME that does not exist: the login shell starts in / and its environment is still kept", async () => {
  d = await device();
  shell = fakeShell(d.box.dir);
  const fakeBin = join(d.box.dir, "fakebin");
  mkdirSync(fakeBin);
  writeFileSync(join(fakeBin, "systemctl"), '#!/bin/sh\ncase "$*" in --version) echo "systemd 252" ;; "--user is-active lembas.service") echo inactive; exit 3 ;; esac\n');
  writeFileSync(join(fakeBin, "loginctl"), "#!/bin/sh\necho yes\n");
  chmodSync(join(fakeBin, "systemctl"), 0o755);
  chmodSync(join(fakeBin, "loginctl"), 0o755);
  const result = await runLembas(d.box, ["service", "install"], {
    env: { HOME: join(d.box.dir, "no-such-home"), SHELL: shell, PATH: `${fakeBin}:/usr/bin:/bin`, XDG_CONFIG_HOME: join(d.box.dir, "xdg"), USER: "me" },
  });
  expect(result.stderr).toBe("");
  expect(JSON.parse(readFileSync(join(d.box.stateDir, "login-env.json"), "utf8")).env.FROM_LOGIN_PROFILE).toBe("nvm-node-20");
}, 60_000);
