import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encryptedUrl } from "../../src/link/login.ts";
import { openDb } from "../../src/store/db.ts";
import { listLogins } from "../../src/store/logins.ts";
import { type Instance, startInstance } from "../support/instance.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { runLembas, type Sandbox, sandbox } from "../support/run.ts";

let box: Sandbox;
let model: ScriptedModel;
let instance: Instance;
beforeEach(async () => {
  box = sandbox();
  model = await startModel({
    models: [
      { id: "deepseek/deepseek-flash", kind: "chat" },
      { id: "openai/gpt-5", kind: "chat", provider: "openai" },
      { id: "bge-m3", kind: "embedding" },
      { id: "whisper", kind: "stt" },
    ],
  });
  instance = await startInstance({ token: "good-token", model });
});
afterEach(async () => {
  await instance.close();
  await model.close();
  box.cleanup();
});

const login = (args: string[], stdin = "good-token") => runLembas(box, ["login", instance.url, "--token-stdin", ...args], { stdin });
const logins = () => {
  const db = openDb(join(box.stateDir, "lembas.db"));
  const all = listLogins(db);
  db.close();
  return all;
};

describe("lembas login", () => {
  test("reads discovery, checks the token, keeps the login, sets embedding from the first embedding model", async () => {
    const result = await login([]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("logged in to");
    const [saved] = logins();
    expect(saved).toMatchObject({ url: instance.url, token: "good-token", protocols: [1, 2], name: "lembas" });
    expect(Bun.YAML.parse(readFileSync(join(box.configDir, "config.yaml"), "utf8"))).toEqual({ embedding: "lembas/bge-m3" });
    expect(result.stdout).not.toContain("good-token");
  });

  test("never replaces an embedding that is set", async () => {
    mkdirSync(box.configDir, { recursive: true });
    writeFileSync(join(box.configDir, "config.yaml"), "embedding: mine/e5\n");
    expect((await login(["--name", "work"])).code).toBe(0);
    expect(readFileSync(join(box.configDir, "config.yaml"), "utf8")).toBe("embedding: mine/e5\n");
  });

  test("the instance's chat models become refs by the naming rules", async () => {
    await login(["--name", "work"]);
    const models = await runLembas(box, ["models"]);
    expect(models.stdout.split("\n").map((l) => l.trim().split(/\s+/)[0]).filter(Boolean).sort()).toEqual(["deepseek/deepseek-flash", "openai/gpt-5"]);
  });

  test("falls back to protocol when protocols is absent", async () => {
    instance.setDiscovery({ protocol: 1, protocols: null });
    expect((await login([])).code).toBe(0);
    expect(logins()[0]?.protocols).toEqual([1]);
  });

  test("an instance that speaks neither protocol is refused with a sentence", async () => {
    instance.setDiscovery({ protocol: 3, protocols: [3] });
    const result = await login([]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toContain("speaks link protocol 3, and this lembas speaks 1 and 2: update one of them");
    expect(logins()).toEqual([]);
  });

  test("a wrong token is refused with a sentence and nothing is kept", async () => {
    const result = await login([], "wrong-token");
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(`lembas: ${instance.url} did not accept the token: make a new device token in the web UI and log in again`);
    expect(logins()).toEqual([]);
  });

  test("a URL that is no instance is refused", async () => {
    const result = await runLembas(box, ["login", model.url.replace("/v1", ""), "--token-stdin"], { stdin: "x" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("is not a LLeMbas instance");
  });

  test("http:// to a host other than loopback is refused before any connection, in one line, and nothing is kept", async () => {
    const result = await runLembas(box, ["login", "http://example.invalid", "--token-stdin"], { stdin: "good-token" });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "lembas: http://example.invalid would send the device token unencrypted: use https://, or add --insecure if you trust every network between here and example.invalid\n",
    );
    expect(existsSync(box.stateDir)).toBe(false);
    expect(existsSync(box.configDir)).toBe(false);
  });

  test("with --insecure the http:// login goes ahead (here to a host that does not exist)", async () => {
    const result = await runLembas(box, ["login", "http://example.invalid", "--token-stdin", "--insecure"], { stdin: "good-token" });
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain("unencrypted");
    expect(result.stderr).toStartWith("lembas: could not reach http://example.invalid: ");
    expect(logins()).toEqual([]);
  });

  test("logout forgets the login", async () => {
    await login(["--name", "work"]);
    expect((await runLembas(box, ["logout", "nope"])).code).toBe(2);
    const out = await runLembas(box, ["logout"]);
    expect(out).toMatchObject({ code: 0, stdout: "logged out of work\n" });
    expect(logins()).toEqual([]);
  });

  test("status lists the login and says the service is not running", async () => {
    await login(["--name", "work"]);
    const status = await runLembas(box, ["status"]);
    expect(status.stdout).toContain(`work  ${instance.url}  no link (the service is not running)`);
    expect(status.stdout).toContain("service: not running");
  });
});

describe("which instance URLs a token may travel to unencrypted", () => {
  test("https anywhere, http only to loopback (127.0.0.0/8, ::1, localhost), or with --insecure", () => {
    for (const url of ["https://lembas.example", "http://127.0.0.1:8000", "http://127.9.8.7", "http://[::1]:8000", "http://localhost:3000", "http://LOCALHOST"]) {
      expect(() => encryptedUrl(url, false)).not.toThrow();
    }
    for (const url of ["http://10.0.0.1", "http://128.0.0.1", "http://localhost.evil.example", "http://127.0.0.1.nip.io", "http://[::2]", "http://lembas.example"]) {
      expect(() => encryptedUrl(url, false)).toThrow("would send the device token unencrypted");
      expect(encryptedUrl(url, true)).toBe(url);
    }
  });
});
