import { afterEach, beforeEach, expect, test } from "bun:test";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { listLogins } from "../../src/store/logins.ts";
import { type Instance, startInstance } from "../support/instance.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { runLembas, type Sandbox, sandbox } from "../support/run.ts";
import { HAVE_TMUX, openScreen } from "../support/tmux.ts";

const TOKEN = "secret-token-4711";
let box: Sandbox;
let model: ScriptedModel;
let instance: Instance;
beforeEach(async () => {
  box = sandbox();
  model = await startModel();
  instance = await startInstance({ token: TOKEN, model });
});
afterEach(async () => {
  await instance.close();
  await model.close();
  box.cleanup();
});

const tokens = () => {
  const db = openDb(join(box.stateDir, "lembas.db"));
  const all = listLogins(db).map((l) => l.token);
  db.close();
  return all;
};

test.skipIf(!HAVE_TMUX)("the token prompt shows nothing of what is typed; Backspace takes a character back, an arrow key is no part of it; the login works", async () => {
  const screen = await openScreen(box, { args: ["login", instance.url, "--name", "inst"] });
  try {
    await screen.waitFor("device token");
    // A typo, taken back: what is kept is the token.
    await screen.type(`${TOKEN}x`, "BSpace", "Left");
    await Bun.sleep(200);
    expect(screen.text()).not.toContain("secret");
    expect(screen.text()).not.toContain("4711");
    await screen.type("Enter");
    await screen.waitFor("logged in to");
    expect(await screen.exited()).toBe(0);
    expect(screen.text()).not.toContain(TOKEN);
  } finally {
    await screen.close();
  }
  expect(tokens()).toEqual([TOKEN]);
});

test.skipIf(!HAVE_TMUX)("Ctrl-C at the token prompt ends with 130, keeps no login, and leaves the terminal echoing", async () => {
  const screen = await openScreen(box, { args: ["login", instance.url] });
  try {
    await screen.waitFor("device token");
    await screen.type("abc", "C-c");
    expect(await screen.exited()).toBe(130);
    // The script's shell after the program: a terminal left in raw mode would not echo this.
    await screen.type("echoed-again");
    await screen.waitFor("echoed-again");
  } finally {
    await screen.close();
  }
  expect(tokens()).toEqual([]);
});

test("a login to an instance already logged in to says on stderr which login it replaced", async () => {
  const first = await runLembas(box, ["login", instance.url, "--token-stdin", "--name", "inst"], { stdin: TOKEN });
  expect(first).toMatchObject({ code: 0, stderr: "" });
  const again = await runLembas(box, ["login", instance.url, "--token-stdin", "--name", "work"], { stdin: TOKEN });
  expect(again.code).toBe(0);
  expect(again.stderr).toBe(`replaced the login inst for ${instance.url} (now named work): its token is forgotten\n`);
  const same = await runLembas(box, ["login", instance.url, "--token-stdin"], { stdin: TOKEN });
  expect(same.stderr).toBe(`replaced the login work for ${instance.url}: its token is forgotten\n`);
});
