/**
 * engine/config-derived.ts: what tools are given of config.yaml (protected paths, the commands'
 * environment, fetch's private hosts) follows a live config, and is made again only when the part
 * it is made of changed: a tool call on an unchanged file compiles nothing.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LiveConfig } from "../../src/config/live.ts";
import { liveCommands, liveProtectedPaths, liveWeb } from "../../src/engine/config-derived.ts";
import { isProtected } from "../../src/project/protected.ts";
import { type Sandbox, sandbox } from "../support/run.ts";

let box: Sandbox;
let file: string;
beforeEach(() => {
  box = sandbox();
  mkdirSync(box.configDir, { recursive: true });
  file = join(box.configDir, "config.yaml");
});
afterEach(() => box.cleanup());

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test("the same protected paths and environment while config.yaml is unchanged; edited, the new ones from the next look", async () => {
  writeFileSync(file, "mode: edit\n");
  const { config } = new LiveConfig(file);
  const guarded = liveProtectedPaths(config, [box.configDir]);
  const commands = liveCommands(config, { PATH: "/bin", DEPLOY_TOKEN: "t0k" }, []);
  const web = liveWeb(config);
  const first = guarded();
  const env = commands.env;
  await nextTurn();
  // Another look at the file, the same file: nothing made again.
  expect(guarded()).toBe(first);
  expect(commands.env).toBe(env);
  expect(env.DEPLOY_TOKEN).toBeUndefined();
  expect(isProtected(join(box.dir, "plans.txt"), box.dir, first)).toBe(false);
  expect(web.allowPrivate).toBe(false);

  // A different mode only: what tools are given is not made again.
  writeFileSync(file, "mode: plan\n");
  await nextTurn();
  expect(config.mode).toBe("plan");
  expect(guarded()).toBe(first);

  writeFileSync(file, "protected: [plans.txt]\ntools:\n  env_passthrough: [DEPLOY_TOKEN]\nfetch:\n  allow_private: true\n");
  await nextTurn();
  expect(isProtected(join(box.dir, "plans.txt"), box.dir, guarded())).toBe(true);
  expect(commands.env.DEPLOY_TOKEN).toBe("t0k");
  expect(web.allowPrivate).toBe(true);
});
