/**
 * config/glance.ts reads, without the schema, what the terminal's first frame shows of
 * config.yaml; it must agree with the schema on every valid file, and fall back to the defaults
 * (the file is refused whole right after the frame) on anything else.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FRAME_DEFAULTS, glanceConfig } from "../../src/config/glance.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type Sandbox, sandbox } from "../support/run.ts";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
  mkdirSync(box.configDir, { recursive: true });
});
afterEach(() => box.cleanup());

const file = () => join(box.configDir, "config.yaml");
const picked = (path: string) => {
  const { theme, model, mode, effort } = loadConfig(path);
  return { theme, model, mode, effort };
};

test("with no config.yaml, the first frame's settings are the schema's defaults", () => {
  expect(glanceConfig(file())).toEqual(FRAME_DEFAULTS);
  expect(picked(file())).toEqual(FRAME_DEFAULTS);
});

test("a valid config.yaml gives the first frame what the schema reads of it", () => {
  for (const text of ["theme: light\nmodel: local/qwen\nmode: plan\neffort: high\n", "mode: auto\n", "model: null\neffort: off\n", "{}\n", ""]) {
    writeFileSync(file(), text);
    expect(glanceConfig(file())).toEqual(picked(file()));
  }
});

test("a key that is not valid, or a file that is not YAML, gives the defaults (the schema refuses it after the frame)", () => {
  writeFileSync(file(), "theme: pink\nmodel: ''\nmode: fast\neffort: 3\n");
  expect(glanceConfig(file())).toEqual(FRAME_DEFAULTS);
  writeFileSync(file(), "theme: [light\n");
  expect(glanceConfig(file())).toEqual(FRAME_DEFAULTS);
  writeFileSync(file(), "- a list\n");
  expect(glanceConfig(file())).toEqual(FRAME_DEFAULTS);
});
