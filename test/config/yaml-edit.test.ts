import { describe, expect, test } from "bun:test";
import { editYamlKey } from "../../src/config/yaml-edit.ts";

const FILE = `# my settings, keep me
model: local/qwen   # the usual one
effort: medium

remote:
  # who may come in
  roots: [~/work]
  max_mode: edit
connections:
  local:
    base_url: http://127.0.0.1:11434/v1
`;

const parse = (text: string) => Bun.YAML.parse(text) as Record<string, unknown>;

describe("setting one key keeps the rest of config.yaml as written", () => {
  test("a top-level scalar: its line only, the comments stay", () => {
    const out = editYamlKey(FILE, ["effort"], "high");
    expect(out).toContain("# my settings, keep me");
    expect(out).toContain("model: local/qwen   # the usual one");
    expect(out).toContain("effort: high\n");
    expect(parse(out ?? "").effort).toBe("high");
  });

  test("a nested key: the comment in its block stays", () => {
    const out = editYamlKey(FILE, ["remote", "max_mode"], "manual") ?? "";
    expect(out).toContain("  # who may come in");
    expect(parse(out).remote).toEqual({ roots: ["~/work"], max_mode: "manual" });
  });

  test("a key not there yet goes at the end of its block; a block not there at the end of the file", () => {
    const a = editYamlKey(FILE, ["remote", "terminal"], true) ?? "";
    expect(parse(a).remote).toEqual({ roots: ["~/work"], max_mode: "edit", terminal: true });
    const b = editYamlKey(FILE, ["tools", "env_passthrough"], ["GH_TOKEN"]) ?? "";
    expect(parse(b).tools).toEqual({ env_passthrough: ["GH_TOKEN"] });
    expect(b.startsWith("# my settings, keep me")).toBe(true);
  });

  test("a mapping value replaces the key's whole block", () => {
    const out = editYamlKey(FILE, ["connections", "local"], { base_url: "http://127.0.0.1:1234/v1", api_key: "k" }) ?? "";
    expect(parse(out).connections).toEqual({ local: { base_url: "http://127.0.0.1:1234/v1", api_key: "k" } });
    expect(out).toContain("# who may come in");
  });

  test("what it cannot edit line by line gives null (the caller writes the file whole)", () => {
    expect(editYamlKey("remote: {max_mode: edit}\n", ["remote", "max_mode"], "auto")).toBeNull();
    expect(editYamlKey("a: 1\na: 2\n", ["a"], 3)).toBeNull();
  });
});
