import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { saveLogin } from "../../src/store/logins.ts";
import { setPersonalization } from "../../src/store/personalization.ts";
import { type Instance, startInstance } from "../support/instance.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const TOKEN = "device-token-0123456789";
const SAVED = { enabled: true, available: true, personality: "teacher", personality_custom: null, instructions: "Use tabs." };
const suite = screenSuite({ ready: "test/test-model" });
let instance: Instance;

beforeAll(async () => {
  instance = await startInstance({ token: TOKEN });
  instance.setPersonalization(SAVED);
});
afterAll(() => instance.close());

describe.skipIf(!HAVE_TMUX)("/settings while the instance's personalization applies", () => {
  test("shows the instance's values, and a change is PUT (that field and enabled: true), config.yaml unchanged", async () => {
    const { box } = suite;
    const db = openDb(join(box.stateDir, "lembas.db"));
    saveLogin(db, { name: "work", url: instance.url, token: TOKEN, protocols: [1, 2] });
    setPersonalization(db, instance.url, SAVED);
    db.close();
    const before = readFileSync(join(box.configDir, "config.yaml"), "utf8");
    const screen = await suite.open();
    await screen.type("/settings", "Enter");
    await screen.waitFor("Settings (config.yaml)");
    await screen.waitFor("Use tabs. (work's)");
    await screen.type("Escape");
    await screen.waitGone("Settings (config.yaml)");
    await screen.type("/settings instructions Use spaces.", "Enter");
    await screen.waitFor(`instructions = Use spaces. (saved to work (${instance.url})`);
    expect(instance.personalizationPuts).toEqual([{ enabled: true, instructions: "Use spaces." }]);
    expect(readFileSync(join(box.configDir, "config.yaml"), "utf8")).toBe(before);
  });
});
