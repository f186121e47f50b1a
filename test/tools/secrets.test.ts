import { approveAll } from "../../src/engine/interaction.ts";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { saveLogin } from "../../src/store/logins.ts";
import { findSandbox } from "../../src/tools/sandbox.ts";
import { type EngineHarness, engineHarness, isStep, step } from "../support/engine.ts";
import { contentText, type ScriptedModel, startModel } from "../support/model.ts";
import { projectSandbox, runLembas } from "../support/run.ts";
import { bwrapSandbox } from "../support/tools.ts";

let h: EngineHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

function lastToolResult(model: ScriptedModel): string {
  const steps = model.requests.filter((r) => isStep(r.body));
  return contentText(steps.at(-1)?.body.messages?.findLast((m) => m.role === "tool")?.content);
}

describe("secrets stay out of the bash tool's environment", () => {
  test("secret-looking variables, a connection's api_key_env variable and a variable holding an api_key are left out; a passthrough one and the rest stay", async () => {
    const model = await startModel();
    const box = projectSandbox(model.url);
    try {
      writeFileSync(
        join(box.configDir, "config.yaml"),
        [
          "model: test/test-model",
          "connections:",
          `  test: {base_url: "${model.url}"}`,
          '  keyed: {base_url: "http://127.0.0.1:1/v1", api_key_env: MODEL_CREDENTIAL}',
          '  inline: {base_url: "http://127.0.0.1:1/v1", api_key: sk-inline-api-key}',
          "tools:",
          "  env_passthrough: [GITHUB_TOKEN]",
          "",
        ].join("\n"),
      );
      const secrets = {
        MY_API_TOKEN: "x-token-value",
        AWS_SECRET_ACCESS_KEY: "aws-secret-value",
        DB_PASSWORD: "hunter2-value",
        MODEL_CREDENTIAL: "from-api-key-env",
        INNOCENT_NAME: "sk-inline-api-key",
      };
      const env = { ...secrets, GITHUB_TOKEN: "gh-passed-through", PLAIN_SETTING: "plain-value" };
      model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "env" } }] }), step({ text: "done" }));
      const result = await runLembas(box, ["run", "--mode", "auto", "show the environment"], { cwd: box.project, env });
      expect(result.code).toBe(0);
      const seen = lastToolResult(model);
      for (const [name, value] of Object.entries(secrets)) {
        expect(seen).not.toContain(`${name}=`);
        expect(seen).not.toContain(value);
      }
      expect(seen).toContain("GITHUB_TOKEN=gh-passed-through");
      expect(seen).toContain("PLAIN_SETTING=plain-value");
      expect(seen).toContain(`LEMBAS_STATE_DIR=${box.stateDir}`);
    } finally {
      await model.close();
      box.cleanup();
    }
  });
});

const bwrap = bwrapSandbox("the engine's sandbox tests");

describe.skipIf(!bwrap)("the device token is out of the bash tool's reach", () => {
  test("the database and the config dir cannot be read, the lembas process is not in /proc, and the command still works", async () => {
    const outside = `/tmp/lembas-outside-${process.pid}-${Date.now()}.txt`;
    writeFileSync(outside, "read from outside\n");
    h = await engineHarness();
    saveLogin(h.db, { name: "work", url: "https://lembas.example", token: "the-device-token-value", protocols: [1] });
    const { stateDir, configDir } = h.box;
    mkdirSync(configDir, { recursive: true });
    writeFileSync(join(configDir, "config.yaml"), "connections: {}\n");
    const command = [
      `cat ${stateDir}/lembas.db; echo "db: $?"`,
      `ls -A ${configDir} ${stateDir}; echo "dirs: $?"`,
      `ls /proc/${process.pid}/fd >/dev/null 2>&1; echo "fds: $?"`,
      `cat /proc/${process.pid}/environ >/dev/null 2>&1; echo "environ: $?"`,
      `ls /proc | grep -cx ${process.pid}`,
      `umount ${stateDir} 2>/dev/null; cat ${stateDir}/lembas.db /proc/1/root${stateDir}/lembas.db 2>/dev/null; echo "unmounted: $?"`,
      `ls -l /proc/self/fd/ | grep -c lembas.db`,
      "echo written > made.txt && cat made.txt",
      `cat ${outside}; rm ${outside}`,
    ].join("\n");
    const session = await h.session({ mode: "auto" });
    // The command names the state dir, so even auto mode asks: the person says yes, and the sandbox is what stops it.
    session.interaction = approveAll();
    h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command } }] }), step({ text: "done" }));
    await session.prompt({ text: "look" });
    const seen = lastToolResult(h.model);
    expect(seen).not.toContain("the-device-token-value");
    expect(seen).toContain(`cat: ${stateDir}/lembas.db: No such file or directory\ndb: 1`);
    expect(seen).toContain("dirs: 0");
    expect(seen).not.toContain("config.yaml");
    expect(seen).toContain("fds: 2\nenviron: 1\n0\nunmounted: 1\n0\nwritten\nread from outside");
    expect(readFileSync(join(h.project, "made.txt"), "utf8")).toBe("written\n");
  });
});

describe.skipIf(!bwrap)("the state dir is hidden however it is given and wherever the session is", () => {
  test("a LEMBAS_STATE_DIR through a symlink, with a trailing slash, in a session rooted at a dir holding it", async () => {
    const model = await startModel();
    const box = projectSandbox(model.url);
    try {
      const real = join(box.dir, "real-state");
      mkdirSync(box.stateDir, { recursive: true });
      renameSync(box.stateDir, real);
      symlinkSync(real, box.stateDir);
      const db = openDb(join(real, "lembas.db"));
      saveLogin(db, { name: "work", url: "https://lembas.example", token: "the-device-token-value", protocols: [1] });
      db.close();
      const command = `cat state/lembas.db real-state/lembas.db ${real}/lembas.db 2>&1 | grep -c 'No such file'; ls -A real-state | wc -l`;
      model.push(step({ toolCalls: [{ name: "bash", arguments: { command } }] }), step({ text: "done" }));
      const result = await runLembas(box, ["run", "--mode", "auto", "--yes", "look"], { cwd: box.dir, env: { LEMBAS_STATE_DIR: `${box.stateDir}/` } });
      expect(result.code).toBe(0);
      const seen = lastToolResult(model);
      expect(seen).not.toContain("the-device-token-value");
      expect(seen).toBe("3\n0");
    } finally {
      await model.close();
      box.cleanup();
    }
  });
});
