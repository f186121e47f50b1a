import { existsSync, mkdirSync, writeFileSync } from "node:fs";
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

/** Once a `lembas serve` started in a bench home has made its control socket, a second more (idle). */
export async function untilServing(env: Record<string, string>): Promise<void> {
  const socket = join(env.LEMBAS_STATE_DIR ?? "", "service.sock");
  for (let i = 0; i < 400 && !existsSync(socket); i++) await Bun.sleep(25);
  if (!existsSync(socket)) throw new Error("lembas serve made no control socket in 10 s");
  await Bun.sleep(1000);
}

/** tmux on a socket of its own (`-L name`), with the bench home's environment. */
export function tmuxOn(name: string, env: Record<string, string>): (...args: string[]) => ReturnType<typeof Bun.spawnSync> {
  return (...args) => Bun.spawnSync(["tmux", "-L", name, ...args], { env: { ...process.env, ...env, TERM: "xterm-256color" } });
}

/** Once the terminal in tmux shows its first frame (the status bar names the model), a second more. */
export async function untilFirstFrame(tmux: ReturnType<typeof tmuxOn>): Promise<void> {
  let shown = false;
  for (let i = 0; i < 200 && !shown; i++) {
    shown = (tmux("capture-pane", "-p").stdout?.toString() ?? "").includes("test-model");
    if (!shown) await Bun.sleep(50);
  }
  if (!shown) throw new Error("the terminal showed no first frame in 10 s");
  await Bun.sleep(1000);
}
