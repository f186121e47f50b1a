import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A home for timing the compiled program under `dir`: a committed git project holding `files`, a
 * config.yaml whose model is the scripted one at `modelUrl` (auto mode), and the environment that
 * points lembas at them and at nothing of the person's.
 */
export function benchHome(dir: string, modelUrl: string, files: Record<string, string>): { project: string; env: Record<string, string> } {
  const project = join(dir, "project");
  mkdirSync(project);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(project, name), text);
  const git = (...args: string[]) => Bun.spawnSync(["git", "-c", "user.email=b@b", "-c", "user.name=b", ...args], { cwd: project });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "init");
  mkdirSync(join(dir, "config"));
  writeFileSync(join(dir, "config", "config.yaml"), `model: test/test-model\nmode: auto\nconnections:\n  test:\n    base_url: ${modelUrl}\n`);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, LANG: "C.UTF-8", TERM: "dumb", LEMBAS_CONFIG_DIR: join(dir, "config"), LEMBAS_STATE_DIR: join(dir, "state") };
  return { project, env };
}
