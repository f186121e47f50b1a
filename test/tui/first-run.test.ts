import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { listLogins } from "../../src/store/logins.ts";
import { step } from "../support/engine.ts";
import { type Instance, startInstance } from "../support/instance.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { projectSandbox, runLembas, type Sandbox, sandbox } from "../support/run.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

const TITLE = "lembas has no model to talk to";

let box: Sandbox & { project: string };
let model: ScriptedModel;
let instance: Instance | null = null;
/** A loopback port nothing listens on: the local probe finds no server there. */
let closedPort: number;
const screens: Screen[] = [];

/** A sandbox with a project directory and no connection in config.yaml (effort set, to see it kept). */
function bareSandbox(): Sandbox & { project: string } {
  const base = sandbox();
  const project = join(base.dir, "project");
  mkdirSync(project, { recursive: true });
  mkdirSync(base.configDir, { recursive: true });
  writeFileSync(join(base.configDir, "config.yaml"), "effort: high\n");
  return { ...base, project };
}

function freePort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

beforeEach(async () => {
  model = await startModel();
  closedPort = freePort();
  box = bareSandbox();
});
afterEach(async () => {
  for (const screen of screens.splice(0)) await screen.close();
  await instance?.close();
  instance = null;
  await model.close();
  box.cleanup();
});

async function open(on: Sandbox & { project: string } = box): Promise<Screen> {
  const screen = await openScreen(on, { cwd: on.project, env: { LEMBAS_LOCAL_PORTS: String(closedPort) } });
  screens.push(screen);
  return screen;
}

const config = () => Bun.YAML.parse(readFileSync(join(box.configDir, "config.yaml"), "utf8")) as Record<string, unknown>;
const logins = () => {
  const db = openDb(join(box.stateDir, "lembas.db"));
  const all = listLogins(db);
  db.close();
  return all;
};

/** From the first-run menu to the connection form. */
async function connectionForm(screen: Screen): Promise<void> {
  await screen.waitFor("Add an OpenAI-compatible connection");
  await screen.type("Down", "Enter");
  await screen.waitFor("base URL:");
}

/** Fills the connection form: URL, no key, no name, and submits. */
async function submitConnection(screen: Screen, url: string): Promise<void> {
  await screen.write(url);
  await screen.type("Enter", "Enter", "Enter");
}

describe.skipIf(!HAVE_TMUX)("the first run", () => {
  test("with no connection, no login and no local server, the screen says what it looked for and offers the ways forward", async () => {
    const screen = await open();
    await screen.waitFor(TITLE);
    const text = screen.text();
    expect(text).toContain(`config.yaml (${join(box.configDir, "config.yaml")}): no connection`);
    expect(text).toContain("logins to a LLeMbas instance: none");
    expect(text).toContain(`ports ${closedPort}: none answered`);
    expect(text).toContain("Log in to a LLeMbas instance");
    expect(text).toContain("Add an OpenAI-compatible connection");
    await screen.type("Escape");
    expect(await screen.exited()).toBe(0);
    expect(screen.text()).not.toContain("lembas -r");
  });

  test("adding a connection lists its models; the one picked is written to config.yaml and the session talks to it", async () => {
    model.setModels([{ id: "alpha" }, { id: "beta", context_length: 32768 }]);
    const screen = await open();
    await connectionForm(screen);
    await submitConnection(screen, model.url);
    await screen.waitFor(`The models of ${model.url}: pick one`);
    expect(screen.text()).toContain("alpha");
    await screen.type("Down", "Enter");
    await screen.waitFor("local/beta · edit · effort high");
    expect(screen.text()).toContain(`added the connection local (${model.url})`);
    expect(screen.text()).not.toContain(TITLE);
    expect(config()).toEqual({ effort: "high", connections: { local: { base_url: model.url } }, model: "local/beta" });

    model.push(step({ text: "an answer from beta" }));
    await screen.type("hello", "Enter");
    await screen.waitFor("an answer from beta");
    expect(model.requests.at(-1)?.body.model).toBe("beta");
  });

  test("an API key and a name given are written too, the key is sent, and Esc in the model list goes back to the form", async () => {
    const screen = await open();
    await connectionForm(screen);
    await screen.write(model.url);
    await screen.type("Enter");
    await screen.write("sk-secret");
    await screen.type("Enter");
    await screen.write("mine");
    await screen.type("Enter");
    await screen.waitFor("pick one");
    expect(screen.text()).not.toContain("sk-secret");
    await screen.type("Escape");
    await screen.waitGone("pick one");
    expect(screen.text()).toContain(`base URL: ${model.url}`);
    await screen.type("Enter");
    await screen.waitFor("pick one");
    await screen.type("Enter");
    await screen.waitFor("mine/test-model");
    expect(config()).toEqual({ effort: "high", connections: { mine: { base_url: model.url, api_key: "sk-secret" } }, model: "mine/test-model" });
    model.push(step({ text: "keyed answer" }));
    await screen.type("hi", "Enter");
    await screen.waitFor("keyed answer");
    expect(model.requests.at(-1)?.authorization).toBe("Bearer sk-secret");
  });

  test("a URL that does not answer, one that is not a URL, and a list with no models each give one line, and the form stays; Esc goes back", async () => {
    const screen = await open();
    await connectionForm(screen);
    await submitConnection(screen, `http://127.0.0.1:${closedPort}/v1`);
    await screen.waitFor(/could not reach|refused|did not/i);
    expect(screen.text()).toContain("base URL:");
    expect(screen.text()).not.toMatch(/\bat .*\.ts:\d+/);

    await screen.type("Up", "Up", "C-u");
    await submitConnection(screen, "not a url");
    await screen.waitFor("not a url is not an http:// or https:// URL");
    expect(screen.text()).toContain("base URL:");

    model.setModels([]);
    await screen.type("Up", "Up", "C-u");
    await submitConnection(screen, model.url);
    await screen.waitFor(`${model.url} lists no chat models`);

    await screen.type("Escape");
    await screen.waitGone("base URL:");
    await screen.waitFor("Add an OpenAI-compatible connection");
    expect(config()).toEqual({ effort: "high" });
  });

  test("a model server that answers 401 says so in one line", async () => {
    instance = await startInstance({ token: "good-token", model });
    instance.failModels(401);
    const screen = await open();
    await connectionForm(screen);
    await submitConnection(screen, `${instance.url}/v1`);
    await screen.waitFor(/401/);
    expect(screen.text()).toContain("base URL:");
    expect(config()).toEqual({ effort: "high" });
  });

  test("logging in to an instance from the first-run screen keeps the login and opens the session on its models", async () => {
    instance = await startInstance({ token: "good-token", model });
    const screen = await open();
    await screen.waitFor("Log in to a LLeMbas instance");
    await screen.type("Enter");
    await screen.waitFor("URL:");
    await screen.write(instance.url);
    await screen.type("Enter");
    await screen.write("wrong-token");
    await screen.type("Enter", "Enter");
    await screen.waitFor("did not accept the token");
    expect(logins()).toEqual([]);

    await screen.type("Up", "C-u");
    await screen.write("good-token");
    await screen.type("Enter", "Enter");
    await screen.waitFor(`logged in to ${instance.url} as "lembas"`);
    await screen.waitGone(TITLE);
    expect(screen.text()).not.toContain("good-token");
    expect(logins().map((l) => l.url)).toEqual([instance.url]);

    model.push(step({ text: "an answer through the instance" }));
    await screen.type("hello", "Enter");
    await screen.waitFor("an answer through the instance");
  });

  test("/logout lists the logins and forgets the one picked", async () => {
    instance = await startInstance({ token: "good-token", model });
    const made = await runLembas(box, ["login", instance.url, "--token-stdin"], { stdin: "good-token" });
    expect(made.code).toBe(0);
    const screen = await open();
    await screen.waitFor("edit · effort high");
    expect(screen.text()).not.toContain(TITLE);
    await screen.type("/logout", "Enter");
    await screen.waitFor("Log out of");
    expect(screen.text()).toContain(instance.url);
    await screen.type("Enter");
    await screen.waitFor("logged out of lembas");
    expect(logins()).toEqual([]);
    await screen.type("/logout", "Enter");
    await screen.waitFor("there is no login (/login makes one)");
  });

  test("/login in a session logs in with the same form; Esc closes it", async () => {
    instance = await startInstance({ token: "good-token", model });
    const working = projectSandbox(model.url);
    try {
      const screen = await open(working);
      await screen.waitFor("test/test-model");
      await screen.type("/login", "Enter");
      await screen.waitFor("device token:");
      await screen.type("Escape");
      await screen.waitGone("device token:");
      await screen.type("/login", "Enter");
      await screen.waitFor("URL:");
      await screen.write(instance.url);
      await screen.type("Enter");
      await screen.write("good-token");
      await screen.type("Enter");
      await screen.write("work");
      await screen.type("Enter");
      await screen.waitFor(`logged in to ${instance.url} as "work"`);
      const db = openDb(join(working.stateDir, "lembas.db"));
      expect(listLogins(db).map((l) => l.name)).toEqual(["work"]);
      db.close();
    } finally {
      for (const screen of screens.splice(0)) await screen.close();
      working.cleanup();
    }
  });

  test("with a working config the first-run screen does not appear", async () => {
    const working = projectSandbox(model.url);
    try {
      const screen = await open(working);
      await screen.waitFor("test/test-model · edit · effort medium");
      expect(screen.text()).not.toContain(TITLE);
    } finally {
      for (const screen of screens.splice(0)) await screen.close();
      working.cleanup();
    }
  });
});
