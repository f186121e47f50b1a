import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openPty, type Pty } from "../../src/terminal/pty.ts";
import { LEMBAS, runLembas, type Sandbox, sandbox } from "../support/run.ts";

let box: Sandbox;
let file: string;
let pty: Pty | null = null;
beforeEach(() => {
  box = sandbox();
  file = join(box.configDir, "config.yaml");
});
afterEach(() => {
  pty?.close();
  pty = null;
  box.cleanup();
});

function writeConfig(text: string): void {
  mkdirSync(box.configDir, { recursive: true });
  writeFileSync(file, text);
}

const COMMENTED = `# my lembas
model: local/qwen # the one I use
effort: high
remote:
  # where the web may work
  roots: [~/work]
  max_mode: plan
`;

describe("lembas config unset", () => {
  test("takes the key out, keeps every comment, and the default applies again", async () => {
    writeConfig(COMMENTED);
    const result = await runLembas(box, ["config", "unset", "effort"]);
    expect(result).toMatchObject({ code: 0, stdout: "unset effort: it is medium, the default\n" });
    expect(readFileSync(file, "utf8")).toBe(COMMENTED.replace("effort: high\n", ""));
    expect((await runLembas(box, ["config", "get", "effort"])).stdout).toBe("medium\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test("a nested key, and the mapping it leaves empty", async () => {
    writeConfig(COMMENTED);
    expect((await runLembas(box, ["config", "unset", "remote.max_mode"])).code).toBe(0);
    expect(Bun.YAML.parse(readFileSync(file, "utf8"))).toEqual({ model: "local/qwen", effort: "high", remote: { roots: ["~/work"] } });
    expect(readFileSync(file, "utf8")).toContain("# where the web may work");
    expect((await runLembas(box, ["config", "unset", "remote.roots"])).code).toBe(0);
    expect(Bun.YAML.parse(readFileSync(file, "utf8"))).toEqual({ model: "local/qwen", effort: "high" });
    expect((await runLembas(box, ["config", "get", "remote.max_mode"])).stdout).toBe("edit\n");
  });

  test("a key the file does not set is said, and the file is not written", async () => {
    writeConfig("mode: plan\n");
    const before = statSync(file).mtimeMs;
    const result = await runLembas(box, ["config", "unset", "effort"]);
    expect(result).toMatchObject({ code: 0, stdout: `effort is not set in ${file}\n` });
    expect(statSync(file).mtimeMs).toBe(before);
  });

  test("bad input: a mistyped key gets the nearest; a key whose removal leaves the file invalid is refused, the file kept", async () => {
    writeConfig("model: x\nconnections:\n  local:\n    base_url: http://127.0.0.1:11434/v1\n    api_key_env: KEY\n");
    const typo = await runLembas(box, ["config", "unset", "modle"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr.trim()).toBe(`lembas: ${file}: modle: is not a known key (did you mean model?)`);
    const required = await runLembas(box, ["config", "unset", "connections.local.base_url"]);
    expect(required.code).toBe(2);
    expect(required.stderr.trim().split("\n")).toEqual([`lembas: ${file}: connections.local.base_url: must be a string`]);
    expect(Bun.YAML.parse(readFileSync(file, "utf8"))).toMatchObject({ connections: { local: { api_key_env: "KEY" } } });
    expect((await runLembas(box, ["config", "unset", "connections.local.api_key_env"])).stdout).toBe("unset connections.local.api_key_env\n");
  });
});

describe("a mistyped key gets a did-you-mean", () => {
  test("in config set", async () => {
    const result = await runLembas(box, ["config", "set", "remote.max_mod", "plan"]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`lembas: ${file}: remote.max_mod: is not a known key (did you mean remote.max_mode?)`);
    expect(existsSync(file)).toBe(false);
  });

  test("when config.yaml is loaded, inside a connection too", async () => {
    writeConfig("modle: x\n");
    expect((await runLembas(box, ["config", "get"])).stderr.trim()).toBe(`lembas: ${file}: modle: is not a known key (did you mean model?)`);
    writeConfig("connections:\n  local:\n    base_ulr: http://127.0.0.1:11434/v1\n");
    const result = await runLembas(box, ["run", "hi"]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`lembas: ${file}: connections.local.base_ulr: is not a known key (did you mean connections.local.base_url?)`);
  });

  test("in config get", async () => {
    const result = await runLembas(box, ["config", "get", "efort"]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`lembas: ${file}: efort: is not a known key (did you mean effort?)`);
  });
});

describe("a YAML error", () => {
  test("names its line and column", async () => {
    writeConfig("model: local/qwen\nremote:\n  roots: [~/work\n  max_mode: plan\n");
    const result = await runLembas(box, ["config", "get"]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`lembas: ${file}: line 3, column 10: is not valid YAML (Unexpected token): "  roots: [~/work"`);
  });

  test("one misindented line", async () => {
    writeConfig("model: x\neffort: high\n mode: plan\n");
    expect((await runLembas(box, ["config", "get"])).stderr).toContain(": line 3, column ");
  });
});

/** An $EDITOR that writes each of `texts` in turn, one each time it is run. */
function editorScript(texts: string[]): string {
  const dir = join(box.dir, "editor");
  mkdirSync(dir, { recursive: true });
  texts.forEach((text, i) => writeFileSync(join(dir, `${i}.yaml`), text));
  const script = join(dir, "edit.sh");
  writeFileSync(script, `#!/bin/sh\nn=$(cat "${dir}/count" 2>/dev/null || echo 0)\ncp "${dir}/$n.yaml" "$1"\necho $((n + 1)) > "${dir}/count"\n`);
  chmodSync(script, 0o755);
  return script;
}

describe("lembas config edit", () => {
  test("opens $EDITOR on the file and saves what it wrote once it is valid", async () => {
    writeConfig(COMMENTED);
    const result = await runLembas(box, ["config", "edit"], { env: { EDITOR: editorScript([`${COMMENTED}mode: auto\n`]) } });
    expect(result).toMatchObject({ code: 0, stdout: `saved ${file}\n` });
    expect(readFileSync(file, "utf8")).toBe(`${COMMENTED}mode: auto\n`);
    expect(readdirSync(box.configDir)).toEqual(["config.yaml"]);
  });

  test("an invalid edit is refused with its line; config.yaml stays as it was and the edit is kept", async () => {
    writeConfig(COMMENTED);
    const result = await runLembas(box, ["config", "edit"], { env: { EDITOR: editorScript(["model: [x\n"]) } });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toEqual([
      `lembas: ${file}: line 1, column 8: is not valid YAML (Unexpected token): "model: [x"`,
      `lembas: ${file} is unchanged; the edit is kept in ${join(box.configDir, ".config.yaml.edit.yaml")}: lembas config edit goes on from it`,
    ]);
    expect(readFileSync(file, "utf8")).toBe(COMMENTED);
    // The next edit goes on from the kept one.
    const again = await runLembas(box, ["config", "edit"], { env: { EDITOR: "true" } });
    expect(again.stderr).toContain("going on from the edit kept in");
  });

  test("an editor that fails leaves the file as it was", async () => {
    writeConfig(COMMENTED);
    const result = await runLembas(box, ["config", "edit"], { env: { EDITOR: "false" } });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(`lembas: the editor (false) exited with 1: ${file} is unchanged`);
    expect(readdirSync(box.configDir)).toEqual(["config.yaml"]);
    expect(readFileSync(file, "utf8")).toBe(COMMENTED);
    const missing = await runLembas(box, ["config", "edit"], { env: { EDITOR: "no-such-editor-here" } });
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split("\n").at(-1)).toBe("lembas: there is no editor no-such-editor-here: set EDITOR (or VISUAL) to one, as in EDITOR=nano lembas config edit");
    expect(readdirSync(box.configDir)).toEqual(["config.yaml"]);
  });

  test("at a terminal it offers to edit again after an error, and saves the second edit", async () => {
    writeConfig(COMMENTED);
    const env = { ...box.env, EDITOR: editorScript(["mode: fast\n", "mode: plan\n"]) };
    pty = openPty({ command: [...LEMBAS, "config", "edit"], cwd: box.dir, env, cols: 200, rows: 50 });
    let screen = "";
    const decoder = new TextDecoder();
    pty.onData((bytes) => {
      screen += decoder.decode(bytes, { stream: true }).replace(/\r/g, "");
    });
    const end = Date.now() + 15_000;
    while (!screen.includes("edit it again? [Y/n]") && Date.now() < end) await Bun.sleep(20);
    expect(screen).toContain(`lembas: ${file}: mode: must be one of plan, manual, edit, auto`);
    pty.write("\r");
    expect(await pty.exited).toBe(0);
    expect(readFileSync(file, "utf8")).toBe("mode: plan\n");
  });
});

describe("permissions: rules", () => {
  test("a rule that does not read is one line naming the file, the key and what is wrong (exit 2)", async () => {
    writeConfig("permissions:\n  allow:\n    - Bash(git status:*)\n    - Bash(npm test\n");
    const result = await runLembas(box, ["run", "hi"]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toEqual([
      `lembas: ${file}: permissions.allow.1: "Bash(npm test" is not a rule: write a tool's name, alone or with what it covers in parentheses (Bash(npm test), Edit(src/**))`,
    ]);
  });

  test("a WebFetch rule without domain: says how it is written", async () => {
    writeConfig("permissions:\n  deny: [WebFetch(example.com)]\n");
    const result = await runLembas(box, ["config", "get"]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`lembas: ${file}: permissions.deny.0: "WebFetch(example.com)": a WebFetch rule names a host as domain:example.com`);
  });
});
