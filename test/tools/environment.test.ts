import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Config } from "../../src/config/schema.ts";
import { looksSecret, toolEnvironment } from "../../src/tools/environment.ts";
import { runLembas, type Sandbox, sandbox } from "../support/run.ts";

describe("toolEnvironment", () => {
  test("names like secrets are left out, whatever their case", () => {
    const secret = ["MY_API_TOKEN", "GITHUB_TOKEN", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "CLIENT_SECRET", "DB_PASSWORD", "mysql_password_file", "npm_token", "TOKEN", "Key"];
    const plain = ["PATH", "HOME", "KEYBOARD", "TOKENIZER", "MONKEY", "SECRETARY", "KEY_ID", "LANG"];
    for (const name of secret) expect([name, looksSecret(name)]).toEqual([name, true]);
    for (const name of plain) expect([name, looksSecret(name)]).toEqual([name, false]);
  });

  test("a connection's api_key_env variable and any variable holding a connection's api_key go; env_passthrough keeps what it names", () => {
    const config = Config.parse({
      connections: {
        a: { base_url: "http://127.0.0.1:1/v1", api_key_env: "LOCAL_CRED" },
        b: { base_url: "http://127.0.0.1:2/v1", api_key: "sk-inline" },
      },
      tools: { env_passthrough: ["GITHUB_TOKEN", "COPY"] },
    });
    const env = { PATH: "/bin", LOCAL_CRED: "c", COPY_OF_KEY: "sk-inline", COPY: "sk-inline", GITHUB_TOKEN: "gh", NPM_TOKEN: "npm", UNSET: undefined };
    expect(toolEnvironment(config, env)).toEqual({ PATH: "/bin", COPY: "sk-inline", GITHUB_TOKEN: "gh" });
  });

  test("CDPATH, BASH_ENV, ENV and DBUS_SESSION_BUS_ADDRESS are left out, even when env_passthrough names them: cd, bash's start-up and systemd-run would follow them", () => {
    const config = Config.parse({ tools: { env_passthrough: ["BASH_ENV", "DBUS_SESSION_BUS_ADDRESS"] } });
    const env = { PATH: "/bin", CDPATH: "/tmp", BASH_ENV: "/tmp/run-me.sh", ENV: "/tmp/run-me.sh", DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/user/1000/bus", HOME: "/home/p" };
    expect(toolEnvironment(config, env)).toEqual({ PATH: "/bin", HOME: "/home/p" });
  });

  test("the variables naming the person's tmux, editor and container engine stay: only the sandbox leaves them out (sandbox-sockets.test.ts), and without it a command needs them", () => {
    const config = Config.parse({});
    const env = { PATH: "/bin", TMUX: "/tmp/tmux-1000/default,42,0", TMUX_PANE: "%1", STY: "42.pts-1.h", NVIM: "/run/user/1000/nvim.42.0", DOCKER_HOST: "unix:///run/user/1000/docker.sock", VSCODE_IPC_HOOK_CLI: "/run/user/1000/vscode-ipc-1.sock" };
    expect(toolEnvironment(config, env)).toEqual(env);
  });
});

describe("tools.env_passthrough in config.yaml", () => {
  let box: Sandbox;
  afterEach(() => box.cleanup());

  test("is [] by default, set and read by lembas config, and a bad name is refused with the key", async () => {
    box = sandbox();
    expect((await runLembas(box, ["config", "get", "tools.env_passthrough"])).stdout).toBe("[]\n");
    const set = await runLembas(box, ["config", "set", "tools.env_passthrough", "[GITHUB_TOKEN, NPM_TOKEN]"]);
    expect(set.code).toBe(0);
    expect(Bun.YAML.parse(readFileSync(join(box.configDir, "config.yaml"), "utf8"))).toEqual({ tools: { env_passthrough: ["GITHUB_TOKEN", "NPM_TOKEN"] } });
    expect((await runLembas(box, ["config", "get", "tools.env_passthrough"])).stdout).toBe("- GITHUB_TOKEN\n- NPM_TOKEN\n");
    const bad = await runLembas(box, ["config", "set", "tools.env_passthrough", "[not a name]"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("tools.env_passthrough.0");
    expect(bad.stderr).toContain("a variable name is letters, digits and _");
  });
});
