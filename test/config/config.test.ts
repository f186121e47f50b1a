import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, runLembas, sandbox } from "../support/run.ts";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

function writeConfig(text: string): string {
  mkdirSync(box.configDir, { recursive: true });
  const file = join(box.configDir, "config.yaml");
  writeFileSync(file, text);
  return file;
}

/** A bad config gets exactly one line on stderr naming the file and the key, exit 2, and no stack. */
async function expectConfigError(text: string, key: string, what: RegExp) {
  const file = writeConfig(text);
  const result = await runLembas(box, ["config", "get"]);
  expect(result.code).toBe(2);
  const lines = result.stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(file);
  if (key) expect(lines[0]).toContain(`${key}:`);
  expect(lines[0]).toMatch(what);
  expect(result.stderr).not.toContain("    at ");
}

describe("config.yaml", () => {
  test("with no file the defaults of DESIGN.md apply", async () => {
    const result = await runLembas(box, ["config", "get", "remote.max_mode"]);
    expect(result).toMatchObject({ code: 0, stdout: "edit\n" });
    expect((await runLembas(box, ["config", "get", "remote.approval_timeout"])).stdout).toBe("300\n");
    expect((await runLembas(box, ["config", "get", "mode"])).stdout).toBe("edit\n");
    expect((await runLembas(box, ["config", "get", "effort"])).stdout).toBe("medium\n");
  });

  test("config path honours LEMBAS_CONFIG_DIR", async () => {
    const result = await runLembas(box, ["config", "path"]);
    expect(result.stdout.trim()).toBe(join(box.configDir, "config.yaml"));
  });

  test("invalid YAML names the file", () => expectConfigError("mode: [edit\n", "", /not valid YAML/));
  test("a wrong type names the key", () =>
    expectConfigError("remote:\n  approval_timeout: soon\n", "remote.approval_timeout", /must be a number/));
  test("an unknown mode names the key and the modes", () =>
    expectConfigError("mode: fast\n", "mode", /must be one of plan, manual, edit, auto/));
  test("a relative root is refused", () =>
    expectConfigError("remote:\n  roots: [work]\n", "remote.roots.0", /absolute path/));
  test("an unknown key is refused", () => expectConfigError("modle: x\n", "modle", /not a known key/));
  test("a connection without a URL is refused", () =>
    expectConfigError("connections:\n  local:\n    base_url: localhost\n", "connections.local.base_url", /URL/));
  test("a file that is a list, not a mapping", () => expectConfigError("- a\n- b\n", "", /mapping/));
  test("tui.notify is bell, desktop (the default) or off, and says so for anything else", async () => {
    expect((await runLembas(box, ["config", "get", "tui.notify"])).stdout).toBe("desktop\n");
    await expectConfigError("tui:\n  notify: loud\n", "tui.notify", /must be one of bell, desktop, off/);
  });

  test("serve --stdio, which skips the argument parser, says it the same way and writes nothing to stdout", async () => {
    const file = writeConfig("mode: fast\n");
    const result = await runLembas(box, ["serve", "--stdio"], { stdin: "" });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toContain("mode:");
  });
});

describe("lembas config set", () => {
  test("sets a key, validates it and writes the file atomically with mode 0600", async () => {
    const set = await runLembas(box, ["config", "set", "remote.roots", "[~/work, /srv/code]"]);
    expect(set.code).toBe(0);
    const file = join(box.configDir, "config.yaml");
    expect(Bun.YAML.parse(readFileSync(file, "utf8"))).toEqual({ remote: { roots: ["~/work", "/srv/code"] } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(box.configDir)).toEqual(["config.yaml"]);
    const get = await runLembas(box, ["config", "get", "remote.roots"]);
    expect(get.stdout).toBe("- ~/work\n- /srv/code\n");
  });

  test("keeps the other keys the person wrote", async () => {
    writeConfig("# mine\nmodel: local/qwen\nconnections:\n  local:\n    base_url: http://127.0.0.1:11434/v1\n");
    expect((await runLembas(box, ["config", "set", "effort", "high"])).code).toBe(0);
    const tree = Bun.YAML.parse(readFileSync(join(box.configDir, "config.yaml"), "utf8"));
    expect(tree).toEqual({
      model: "local/qwen",
      connections: { local: { base_url: "http://127.0.0.1:11434/v1" } },
      effort: "high",
    });
  });

  test("a bad value is refused and the file is left as it was", async () => {
    const file = writeConfig("mode: plan\n");
    const result = await runLembas(box, ["config", "set", "mode", "fast"]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`lembas: ${file}: mode: must be one of plan, manual, edit, auto`);
    expect(readFileSync(file, "utf8")).toBe("mode: plan\n");
    expect(readdirSync(box.configDir)).toEqual(["config.yaml"]);
  });

  test("a relative root is refused on set", async () => {
    const result = await runLembas(box, ["config", "set", "remote.roots", "[code]"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("remote.roots.0: must be an absolute path");
  });

  test("getting an unknown key is an error", async () => {
    const result = await runLembas(box, ["config", "get", "nope"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("nope: is not a known key");
  });
});
