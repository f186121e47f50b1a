/**
 * The terminal sees a logout made in another shell: the open session's next turn says the login
 * was logged out and sends nothing with the forgotten token; a login made again brings its models back.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import { type Instance, startInstance } from "../support/instance.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { runLembas, type Sandbox, sandbox } from "../support/run.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

let box: Sandbox & { project: string };
let model: ScriptedModel;
let instance: Instance;
let screen: Screen | null = null;

beforeEach(async () => {
  model = await startModel();
  instance = await startInstance({ token: "good-token", model });
  const base = sandbox();
  const project = join(base.dir, "project");
  mkdirSync(project, { recursive: true });
  mkdirSync(base.configDir, { recursive: true });
  // No connection of the device's own: the models are the instance's.
  writeFileSync(join(base.configDir, "config.yaml"), "effort: high\n");
  box = { ...base, project };
});
afterEach(async () => {
  await screen?.close();
  screen = null;
  await instance.close();
  await model.close();
  box.cleanup();
});

const login = () => runLembas(box, ["login", instance.url, "--token-stdin"], { stdin: "good-token" });

describe.skipIf(!HAVE_TMUX)("logins changed in another shell", () => {
  test("a logout: the next turn says so and sends nothing; logged in again, the turn goes through", async () => {
    expect((await login()).code).toBe(0);
    // A port nothing listens on: no local model server stands in once the login is gone.
    screen = await openScreen(box, { cwd: box.project, env: { LEMBAS_LOCAL_PORTS: "9" } });
    await screen.waitFor("edit · effort high");
    model.push(step({ text: "first answer" }));
    await screen.type("the first prompt", "Enter");
    await screen.waitFor("first answer");

    expect(await runLembas(box, ["logout"])).toMatchObject({ code: 0 });
    model.push(step({ text: "second answer" }));
    await screen.type("the prompt after the logout", "Enter");
    await screen.waitFor(/was logged out\s+\(lembas\s+logout\)/);
    expect(model.requests.filter((r) => JSON.stringify(r.body).includes("the prompt after the logout"))).toEqual([]);

    expect((await login()).code).toBe(0);
    await screen.type("the prompt after the login", "Enter");
    await screen.waitFor("second answer");
  }, 60_000);
});
