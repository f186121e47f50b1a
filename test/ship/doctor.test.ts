import { afterEach, beforeEach, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startControlServer } from "../../src/service/control.ts";
import { openDb } from "../../src/store/db.ts";
import { saveLogin } from "../../src/store/logins.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { type Sandbox, runLembas, sandbox } from "../support/run.ts";
import { tool } from "../support/tools.ts";

let box: Sandbox;
let model: ScriptedModel;
beforeEach(async () => {
  box = sandbox();
  model = await startModel({ models: [{ id: "test-model" }, { id: "other" }] });
});
afterEach(async () => {
  await model.close();
  box.cleanup();
});

function writeConfig(text: string): string {
  mkdirSync(box.configDir, { recursive: true });
  const file = join(box.configDir, "config.yaml");
  writeFileSync(file, text);
  return file;
}

test("a broken config and no shell on PATH are fix lines, the other checks still run, and doctor exits 1", async () => {
  const file = writeConfig("mode: fast\n");
  const empty = join(box.dir, "empty");
  mkdirSync(empty);
  const result = await runLembas(box, ["doctor"], { env: { PATH: empty } });
  expect(result.code).toBe(1);
  expect(result.stdout.split("\n")).toEqual([
    `fix  config ${file}: mode: must be one of plan, manual, edit, auto — edit the file, or set the key with lembas config set KEY VALUE`,
    `ok   database: not made yet (lembas makes ${join(box.stateDir, "lembas.db")} when first needed)`,
    "ok   service: not running (only the web UI needs it)",
    "fix  shells: none of bash, zsh, fish is on PATH — install one of them for terminals with shell integration",
    `fix  sandbox for the tools' commands: none (bwrap (bubblewrap) is not installed), so a command the model runs can read the device tokens in ${box.stateDir} — install bubblewrap (apt install bubblewrap, dnf install bubblewrap)`,
    "",
  ]);
});

test("a good config with a reachable model is all ok, exit 0", async () => {
  const file = writeConfig(`model: local/test-model\nconnections:\n  local:\n    base_url: ${model.url}\n`);
  openDb(join(box.stateDir, "lembas.db")).close();
  const result = await runLembas(box, ["doctor"]);
  const lines = result.stdout.trim().split("\n");
  expect(lines.slice(0, 7)).toEqual([
    `ok   config ${file}`,
    expect.stringMatching(new RegExp(`^ok   database ${join(box.stateDir, "lembas.db")} \\(schema \\d+\\)$`)),
    `ok   model connection local ${model.url}: an OpenAI-compatible server, 2 chat models; speaks chat completions`,
    "ok   model local/test-model: window assumed 32k: set context under the connection",
    "ok   model local/other: window assumed 32k: set context under the connection",
    // No embedding model: why code_search is missing, and how to have it.
    "ok   code index: off (no embedding model, so no code_search): set one with lembas config set embedding CONNECTION/MODEL (e.g. local/nomic-embed-text), or log in to an instance, which sets it",
    "ok   service: not running (only the web UI needs it)",
  ]);
  expect(lines[7]).toStartWith("ok   shells for terminal integration: ");
  expect(lines[8]).toStartWith("ok   sandbox for the tools' commands: ");
  expect(result.code).toBe(0);
});

test("doctor says which sandbox the tools' commands run in, or that there is none and what that means", async () => {
  const bwrap = tool("bwrap", "bubblewrap", "doctor's bwrap line");
  const result = await runLembas(box, ["doctor"]);
  const line = result.stdout.split("\n").find((l) => l.includes("sandbox for the tools' commands"));
  const asRoot = process.getuid?.() === 0 ? ", and runs root's commands without the capabilities that would undo that" : "";
  if (bwrap) expect(line).toBe(`ok   sandbox for the tools' commands: bwrap (${bwrap}), which hides the config and state dirs and the lembas process from them${asRoot}`);
  // A bwrap that cannot start (a system without user namespaces) is told apart from none at all.
  const bin = join(box.dir, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
  chmodSync(join(bin, "bwrap"), 0o755);
  const broken = await runLembas(box, ["doctor"], { env: { PATH: `${bin}:${process.env.PATH ?? ""}` } });
  expect(broken.code).toBe(1);
  expect(broken.stdout).toContain(
    `fix  sandbox for the tools' commands: none (bwrap could not start a sandbox (bwrap: No permissions to create new namespace)), so a command the model runs can read the device tokens in ${box.stateDir} — allow unprivileged user namespaces`,
  );
});

test("with nothing configured doctor finds a local server on the usual ports, or says how to add one", async () => {
  const found = await runLembas(box, ["doctor"], { env: { LEMBAS_LOCAL_PORTS: String(model.port) } });
  expect(found.stdout).toContain(`ok   model: no connection is set, so lembas uses the local server at ${model.url} (2 chat models)\n`);
  expect(found.code).toBe(0);
  const none = await runLembas(box, ["doctor"], { env: { LEMBAS_LOCAL_PORTS: "1" } });
  expect(none.stdout).toContain("fix  model: no connection, no login, and no local model server on the usual ports — add a connection to config.yaml");
  expect(none.code).toBe(1);
});

test("an unreachable connection, and logins whose links the running service reports, each get their line", async () => {
  writeConfig("connections:\n  down:\n    base_url: http://127.0.0.1:1/v1\n");
  const instance = model.url.replace(/\/v1$/, "");
  const db = openDb(join(box.stateDir, "lembas.db"));
  saveLogin(db, { name: "work", url: instance, token: "secret-token", protocols: [1] });
  saveLogin(db, { name: "home", url: "http://127.0.0.1:1", token: "other-token", protocols: [1] });
  db.close();
  const stop = await startControlServer(join(box.stateDir, "service.sock"), () => ({
    pid: 4242,
    version: "0.1.0",
    startedAt: "2025-06-01T10:00:00.000Z",
    links: [
      { name: "work", url: instance, state: "connected", since: "2025-06-01T10:00:01.000Z", sessions: [] },
      { name: "home", url: "http://127.0.0.1:1", state: "waiting", since: "2025-06-01T10:00:02.000Z", sessions: [] },
    ],
  }));
  let result: Awaited<ReturnType<typeof runLembas>>;
  try {
    result = await runLembas(box, ["doctor"]);
  } finally {
    await stop();
  }
  expect(result.code).toBe(1);
  const lines = result.stdout.trim().split("\n");
  expect(lines).toContain(
    "fix  model connection down: the model server at http://127.0.0.1:1/v1 did not answer: connection refused — correct base_url of connection down in config.yaml, or start that server",
  );
  expect(lines).toContain(`ok   model login work ${model.url}: LLeMbas instance, 2 chat models; speaks chat completions`);
  expect(lines).toContain(`ok   login work (${instance}): link connected since 2025-06-01T10:00:01.000Z`);
  expect(lines).toContain(
    "fix  login home (http://127.0.0.1:1): link waiting since 2025-06-01T10:00:02.000Z — lembas service logs shows why; check your network, or log in again with lembas login",
  );
  expect(lines).toContain("ok   service running: pid 4242, lembas 0.1.0");
  expect(result.stdout).not.toContain("secret-token");

  const down = await runLembas(box, ["doctor"]);
  expect(down.stdout).toContain(`ok   login work (${instance}): its link is unknown while the service is not running\n`);
  expect(down.stdout).toMatch(/\nfix {2}service: not running, so the web UI cannot reach this device \(.*\) — start it with lembas service install\n/);
});

test("a connection whose api_key_env names a variable that is not set gets a fix line", async () => {
  writeConfig(
    `model: local/test-model\nconnections:\n  local:\n    base_url: ${model.url}\n    api_key_env: LEMBAS_TEST_KEY\n  other:\n    base_url: ${model.url}\n    api_key_env: LEMBAS_SET_KEY\n`,
  );
  const result = await runLembas(box, ["doctor"], { env: { LEMBAS_SET_KEY: "k" } });
  expect(result.code).toBe(1);
  const lines = result.stdout.trim().split("\n");
  expect(lines[1]).toBe(
    "fix  connection local: api_key_env names LEMBAS_TEST_KEY, which is not set here, so its requests go without a key — export LEMBAS_TEST_KEY=… where lembas runs (for the service too), or set api_key under the connection",
  );
  expect(lines.filter((l) => l.includes("api_key_env"))).toHaveLength(1);
  const set = await runLembas(box, ["doctor"], { env: { LEMBAS_SET_KEY: "k", LEMBAS_TEST_KEY: "k" } });
  expect(set.stdout).not.toContain("api_key_env");
});
