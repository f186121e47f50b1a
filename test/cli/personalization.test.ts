import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PRESETS } from "../../src/config/personalities.ts";
import { openDb } from "../../src/store/db.ts";
import { saveLogin } from "../../src/store/logins.ts";
import { getPersonalization, setPersonalization } from "../../src/store/personalization.ts";
import { isStep } from "../support/engine.ts";
import { type Instance, startInstance } from "../support/instance.ts";
import { type ChatRequest, contentText, type ScriptedModel, startModel } from "../support/model.ts";
import { projectSandbox, runLembas, type Sandbox } from "../support/run.ts";

const TOKEN = "device-token-0123456789";
const SAVED = { enabled: true, available: true, personality: "teacher", personality_custom: null, instructions: "INSTANCE: use tabs." };
const LOCAL_YAML = "personality: concise\ninstructions: 'LOCAL: use spaces.'\n";

let instance: Instance;
let other: Instance;
let model: ScriptedModel;
let box: Sandbox & { project: string };

beforeAll(async () => {
  [instance, other, model] = await Promise.all([startInstance({ token: TOKEN }), startInstance({ token: TOKEN, name: "other" }), startModel()]);
});
afterAll(async () => {
  await Promise.all([instance.close(), other.close(), model.close()]);
});
beforeEach(() => {
  box = projectSandbox(model.url);
  appendFileSync(join(box.configDir, "config.yaml"), LOCAL_YAML);
  for (const i of [instance, other]) {
    i.setPersonalization(SAVED);
    i.failPersonalization(null);
    i.personalizationPuts.length = 0;
  }
  model.requests.length = 0;
});
afterEach(() => box.cleanup());

function withDb<T>(use: (db: ReturnType<typeof openDb>) => T): T {
  const db = openDb(join(box.stateDir, "lembas.db"));
  try {
    return use(db);
  } finally {
    db.close();
  }
}
const login = (name: string, url: string) => withDb((db) => saveLogin(db, { name, url, token: TOKEN, protocols: [1, 2] }));
const cache = (url: string, value: typeof SAVED) => withDb((db) => setPersonalization(db, url, value));
const cached = (url: string) => withDb((db) => getPersonalization(db, url)?.value ?? null);
const run = () => runLembas(box, ["run", "hi"], { cwd: box.project });
const systems = (): string[] => model.requests.filter((r) => isStep(r.body)).map((r) => contentText((r.body as ChatRequest).messages?.[0]?.content));
const configYaml = () => readFileSync(join(box.configDir, "config.yaml"), "utf8");

describe("the system prompt", () => {
  test("logged in to one instance that has it: the first session reads it in the background, the next one uses it", async () => {
    login("work", instance.url);
    expect((await run()).code).toBe(0);
    expect(instance.personalizationRequests).toBeGreaterThan(0);
    expect(cached(instance.url)).toEqual(SAVED);
    expect((await run()).code).toBe(0);
    const [first, second] = systems();
    expect(first).toContain("LOCAL: use spaces.");
    expect(second).toContain(`# Personality\n${PRESETS.teacher}`);
    expect(second).toContain("## The person's instructions\nINSTANCE: use tabs.");
    expect(second).not.toContain("LOCAL");
    expect(second).not.toContain(PRESETS.concise);
  });

  test("disabled: no personality and no instructions, neither the instance's nor config.yaml's", async () => {
    login("work", instance.url);
    cache(instance.url, { ...SAVED, enabled: false });
    instance.setPersonalization({ ...SAVED, enabled: false });
    expect((await run()).code).toBe(0);
    const [system] = systems();
    expect(system).not.toContain("# Personality");
    expect(system).not.toContain("INSTANCE:");
    expect(system).not.toContain("LOCAL:");
  });

  test("a preset lembas does not know is no personality", async () => {
    login("work", instance.url);
    cache(instance.url, { ...SAVED, personality: "grumpy" });
    expect((await run()).code).toBe(0);
    expect(systems()[0]).not.toContain("# Personality");
    expect(systems()[0]).toContain("INSTANCE: use tabs.");
  });

  test("the instance down: the cached copy applies; with no copy, the local keys", async () => {
    const down = await startInstance({ token: TOKEN });
    const url = down.url;
    await down.close();
    login("work", url);
    expect((await run()).code).toBe(0);
    cache(url, SAVED);
    expect((await run()).code).toBe(0);
    const [none, copy] = systems();
    expect(none).toContain("LOCAL: use spaces.");
    expect(copy).toContain("INSTANCE: use tabs.");
    expect(cached(url)).toEqual(SAVED);
  });

  test("a body with wrong types, or an enabled that is not a boolean: the last good copy stays", async () => {
    login("work", instance.url);
    cache(instance.url, SAVED);
    instance.setPersonalization({ ...SAVED, enabled: "true" });
    expect((await run()).code).toBe(0);
    instance.setPersonalization({ ...SAVED, instructions: ["not", "a", "string"] });
    expect((await run()).code).toBe(0);
    expect(cached(instance.url)).toEqual(SAVED);
    for (const system of systems()) expect(system).toContain("INSTANCE: use tabs.");
  });

  test("several logins that have it: the local keys", async () => {
    login("work", instance.url);
    login("home", other.url);
    cache(instance.url, SAVED);
    cache(other.url, SAVED);
    expect((await run()).code).toBe(0);
    expect(systems()[0]).toContain("LOCAL: use spaces.");
    expect(systems()[0]).not.toContain("INSTANCE:");
  });

  test("a session starts without waiting: the first request arrives while the instance still holds the GET", async () => {
    login("work", instance.url);
    cache(instance.url, SAVED);
    instance.failPersonalization({ kind: "slow", slowMs: 15_000 });
    const running = run();
    await model.waitForRequests(1, 10_000);
    const deadline = Date.now() + 5_000;
    while (instance.personalizationHeld === 0 && Date.now() < deadline) await Bun.sleep(10);
    expect(instance.personalizationHeld).toBe(1);
    expect(model.requests.length).toBeGreaterThan(0);
    instance.releasePersonalization();
    expect((await running).code).toBe(0);
    expect(systems()[0]).toContain("INSTANCE: use tabs.");
  });

  test("lembas run does not wait at its end on a read still going", async () => {
    login("work", instance.url);
    // The read is held far longer than the test may take: a run that waited for it would time out.
    instance.failPersonalization({ kind: "slow", slowMs: 120_000 });
    expect((await run()).code).toBe(0);
    instance.releasePersonalization();
  });
});

describe("lembas config set while the instance applies", () => {
  beforeEach(() => {
    login("work", instance.url);
  });

  for (const [key, value] of [["personality", "pragmatic"], ["personality_custom", "Talk like a pirate."], ["instructions", "Use spaces."]] as const) {
    test(`${key}: a PUT of only that field and enabled: true, config.yaml unchanged`, async () => {
      const before = configYaml();
      const result = await runLembas(box, ["config", "set", key, value]);
      expect(result.stderr).toBe("");
      expect(result.stdout).toBe(`${key} = ${value} (saved to work (${instance.url}); config.yaml was not changed; a new session uses it)\n`);
      expect(instance.personalizationPuts).toEqual([{ enabled: true, [key]: value }]);
      expect(configYaml()).toBe(before);
      expect(cached(instance.url)?.[key]).toBe(value);
    });
  }

  test("403 says the detail, else not allowed, and changes nothing", async () => {
    const before = configYaml();
    instance.failPersonalization({ kind: "403", detail: "the token is not a device's token" });
    const refused = await runLembas(box, ["config", "set", "instructions", "x"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`instructions was not saved to work (${instance.url}): the token is not a device's token`);
    instance.failPersonalization({ kind: "403" });
    const bare = await runLembas(box, ["config", "set", "instructions", "x"]);
    expect(bare.stderr).toContain(`instructions was not saved to work (${instance.url}): not allowed`);
    expect(configYaml()).toBe(before);
    expect(cached(instance.url)).toEqual(SAVED);
  });

  test("422 says which field was refused", async () => {
    instance.failPersonalization({ kind: "422", field: "personality_custom" });
    const refused = await runLembas(box, ["config", "set", "personality_custom", "x"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("the instance refused personality_custom");
  });

  test("not available to the account: config.yaml is written, nothing is PUT", async () => {
    instance.setPersonalization({ ...SAVED, available: false });
    const result = await runLembas(box, ["config", "set", "personality", "teacher"]);
    expect(result.stdout).toBe("personality = teacher\n");
    expect(configYaml()).toContain("personality: teacher");
    expect(instance.personalizationPuts).toEqual([]);
  });
});

describe("doctor and status", () => {
  test("doctor says whether personalization is available for each login; status which source applies", async () => {
    login("work", instance.url);
    login("home", other.url);
    other.setPersonalization(null);
    const doctor = await runLembas(box, ["doctor"]);
    expect(doctor.stdout).toContain(`login work (${instance.url}): personalization available, enabled`);
    expect(doctor.stdout).toContain(`login home (${other.url}): personalization not available (the instance does not serve it)`);
    const status = await runLembas(box, ["status"]);
    expect(status.stdout).toContain(`personalization: work's (${instance.url}) applies in place of config.yaml's`);
  });
});
