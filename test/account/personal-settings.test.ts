import { describe, expect, test } from "bun:test";
import { appliedSettings, instanceSettings, localKeys } from "../../src/account/personal-settings.ts";
import { personalityText, PRESETS } from "../../src/config/personalities.ts";

const LOCAL = { personality: "friendly", personality_custom: null, instructions: "LOCAL" };
const ON = { enabled: true, available: true, personality: "teacher", personality_custom: "custom text", instructions: "Use tabs." };
const work = { name: "work", url: "https://work.example" };
const home = { name: "home", url: "https://home.example" };

describe("which settings apply", () => {
  test("logged out: the local keys", () => {
    expect(appliedSettings(LOCAL, [])).toEqual({ source: { kind: "local" }, settings: LOCAL });
  });

  test("exactly one login that has it available: its values replace the local keys", () => {
    const applied = appliedSettings(LOCAL, [{ login: work, value: ON }, { login: home, value: null }]);
    expect(applied).toEqual({ source: { kind: "instance", login: work }, settings: { personality: "teacher", personality_custom: "custom text", instructions: "Use tabs." } });
  });

  test("none that has it available (not available, never read): the local keys", () => {
    expect(appliedSettings(LOCAL, [{ login: work, value: { ...ON, available: false } }, { login: home, value: null }]).source).toEqual({ kind: "local" });
  });

  test("several that have it available: the local keys", () => {
    expect(appliedSettings(LOCAL, [{ login: work, value: ON }, { login: home, value: ON }])).toEqual({ source: { kind: "local" }, settings: LOCAL });
  });

  test("disabled: none of the three, not the local keys either", () => {
    expect(appliedSettings(LOCAL, [{ login: work, value: { ...ON, enabled: false } }]).settings).toEqual({ personality: null, personality_custom: null, instructions: null });
  });

  test("a preset lembas does not know is none; custom keeps its text", () => {
    expect(instanceSettings({ ...ON, personality: "grumpy" }).personality).toBeNull();
    expect(instanceSettings({ ...ON, personality: "custom" }).personality).toBe("custom");
  });

  test("a config.yaml that does not load has no keys", () => {
    expect(localKeys(() => { throw new Error("bad yaml"); })).toEqual({ personality: null, personality_custom: null, instructions: null });
  });
});

describe("what the model is told of its personality", () => {
  test("a preset's paragraph, custom's text, nothing for an unknown name or an empty custom", () => {
    expect(personalityText("concise", null)).toBe(PRESETS.concise);
    expect(personalityText("custom", "Talk like a pirate.")).toBe("Talk like a pirate.");
    expect(personalityText("custom", "  ")).toBeNull();
    expect(personalityText("grumpy", null)).toBeNull();
    expect(personalityText("constructor", null)).toBeNull();
    expect(personalityText(null, "x")).toBeNull();
  });
});
