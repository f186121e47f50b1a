import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cachedApplied, refreshPersonalization } from "../../src/account/personal-source.ts";
import { writePersonal } from "../../src/account/personal-write.ts";
import { fetchPersonalization, putPersonalization } from "../../src/account/personalization.ts";
import { type Db, openDb } from "../../src/store/db.ts";
import { getPersonalization } from "../../src/store/personalization.ts";
import { type Instance, startInstance } from "../support/instance.ts";

const TOKEN = "device-token";
const SAVED = { enabled: true, available: true, personality: "concise", personality_custom: null, instructions: "Use tabs." };
const LOCAL = { personality: "friendly", personality_custom: null, instructions: "LOCAL" };

let instance: Instance;
const login = () => ({ name: "work", url: instance.url, token: TOKEN });

beforeAll(async () => {
  instance = await startInstance({ token: TOKEN });
});
afterAll(() => instance.close());
beforeEach(() => {
  instance.setPersonalization(SAVED);
  instance.failPersonalization(null);
  instance.personalizationPuts.length = 0;
});

describe("GET /v1/me/personalization", () => {
  test("is read with the device token and parsed", async () => {
    expect(await fetchPersonalization(login())).toEqual({ kind: "personalization", value: SAVED });
  });

  test("a body with wrong types is not used, and says which field", async () => {
    instance.setPersonalization({ ...SAVED, instructions: 42 });
    expect(await fetchPersonalization(login())).toEqual({ kind: "failed", why: "its answer does not read as personalization (instructions: Invalid input: expected string, received number)" });
  });

  test("an enabled that is not a boolean is not used", async () => {
    instance.setPersonalization({ ...SAVED, enabled: "yes" });
    const read = await fetchPersonalization(login());
    expect(read.kind).toBe("failed");
    expect(read.kind === "failed" && read.why).toStartWith("its answer does not read as personalization (enabled:");
  });

  test("404 is absent; 500 and a hang past the timeout are failures", async () => {
    instance.setPersonalization(null);
    expect(await fetchPersonalization(login())).toEqual({ kind: "absent" });
    instance.failPersonalization({ kind: "500" });
    expect(await fetchPersonalization(login())).toEqual({ kind: "failed", why: "it answered 500" });
    instance.failPersonalization({ kind: "slow" });
    expect(await fetchPersonalization(login(), { timeoutMs: 200 })).toEqual({ kind: "failed", why: "it did not answer within 200 ms" });
    instance.releasePersonalization();
  });

  test("403 (not available to this account, or not to this token) is refused, with the detail, else not allowed", async () => {
    instance.failPersonalization({ kind: "403", detail: "Personalization is not available on your plan", get: true });
    expect(await fetchPersonalization(login())).toEqual({ kind: "refused", why: "Personalization is not available on your plan" });
    instance.failPersonalization({ kind: "403", get: true });
    expect(await fetchPersonalization(login())).toEqual({ kind: "refused", why: "not allowed" });
  });

  test("an instance down is a failure", async () => {
    const read = await fetchPersonalization({ url: "http://127.0.0.1:1", token: TOKEN });
    expect(read.kind).toBe("failed");
  });
});

describe("the partial PUT", () => {
  test("sends only the changed field and enabled: true, for each of the three", async () => {
    expect(await putPersonalization(login(), "personality", "teacher")).toEqual({ ok: true, value: { ...SAVED, personality: "teacher" } });
    expect(await putPersonalization(login(), "personality_custom", "Talk like a pirate.")).toMatchObject({ ok: true });
    expect(await putPersonalization(login(), "instructions", "Use spaces.")).toMatchObject({ ok: true });
    expect(instance.personalizationPuts).toEqual([
      { enabled: true, personality: "teacher" },
      { enabled: true, personality_custom: "Talk like a pirate." },
      { enabled: true, instructions: "Use spaces." },
    ]);
  });

  test("403 says the response's detail, else not allowed", async () => {
    instance.failPersonalization({ kind: "403", detail: "Personalization is not available on your plan" });
    expect(await putPersonalization(login(), "instructions", "x")).toEqual({ ok: false, why: "Personalization is not available on your plan" });
    instance.failPersonalization({ kind: "403" });
    expect(await putPersonalization(login(), "instructions", "x")).toEqual({ ok: false, why: "not allowed" });
  });

  test("422 says which field was refused", async () => {
    instance.failPersonalization({ kind: "422", field: "personality_custom" });
    expect(await putPersonalization(login(), "personality_custom", "x")).toEqual({ ok: false, why: "the instance refused personality_custom" });
  });
});

describe("the store's copy and the write-back", () => {
  let dir: string;
  let db: Db;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "lembas-persona-"));
    db = openDb(join(dir, "lembas.db"));
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a refresh keeps the copy; a failure keeps the last good one; a 404 drops it", async () => {
    await refreshPersonalization(db, [login()]);
    expect(getPersonalization(db, instance.url)?.value).toEqual(SAVED);
    instance.setPersonalization({ ...SAVED, enabled: 1 });
    await refreshPersonalization(db, [login()]);
    expect(getPersonalization(db, instance.url)?.value).toEqual(SAVED);
    instance.failPersonalization({ kind: "500" });
    await refreshPersonalization(db, [login()]);
    expect(cachedApplied(db, LOCAL, [login()]).settings).toEqual({ personality: "concise", personality_custom: null, instructions: "Use tabs." });
    instance.failPersonalization(null);
    instance.setPersonalization(null);
    await refreshPersonalization(db, [login()]);
    expect(getPersonalization(db, instance.url)).toBeNull();
    expect(cachedApplied(db, LOCAL, [login()]).settings).toEqual(LOCAL);
  });

  test("a change while the instance applies is PUT (that field and enabled: true) and kept in the copy", async () => {
    const written = await writePersonal(db, LOCAL, [login()], "instructions", "Use spaces.");
    expect(written).toEqual({ kind: "saved", line: `instructions = Use spaces. (saved to work (${instance.url}); config.yaml was not changed; a new session uses it)` });
    expect(instance.personalizationPuts).toEqual([{ enabled: true, instructions: "Use spaces." }]);
    expect(getPersonalization(db, instance.url)?.value.instructions).toBe("Use spaces.");
  });

  test("a refusal throws its reason and changes nothing", async () => {
    instance.failPersonalization({ kind: "403", detail: "the token is not a device's token" });
    await expect(writePersonal(db, LOCAL, [login()], "instructions", "x")).rejects.toThrow(`instructions was not saved to work (${instance.url}): the token is not a device's token`);
    instance.failPersonalization({ kind: "403" });
    await expect(writePersonal(db, LOCAL, [login()], "instructions", "x")).rejects.toThrow(`instructions was not saved to work (${instance.url}): not allowed`);
    instance.failPersonalization({ kind: "422", field: "instructions" });
    await expect(writePersonal(db, LOCAL, [login()], "instructions", "x")).rejects.toThrow("the instance refused instructions");
    instance.failPersonalization(null);
    expect(getPersonalization(db, instance.url)?.value).toEqual(SAVED);
    expect(await fetchPersonalization(login())).toEqual({ kind: "personalization", value: SAVED });
  });

  test("logged in to none that has it, the change is config.yaml's", async () => {
    instance.setPersonalization({ ...SAVED, available: false });
    expect(await writePersonal(db, LOCAL, [login()], "personality", "teacher")).toEqual({ kind: "local" });
    expect(instance.personalizationPuts).toEqual([]);
  });

  test("a preset lembas does not know is refused before any PUT", async () => {
    await expect(writePersonal(db, LOCAL, [login()], "personality", "grumpy")).rejects.toThrow("personality must be one of concise, friendly, teacher, pragmatic, skeptical, custom");
    expect(instance.personalizationPuts).toEqual([]);
  });
});
