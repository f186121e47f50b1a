import { homedir } from "../home.ts";
import { join } from "node:path";

export type Env = Record<string, string | undefined>;

/** Where lembas keeps its files; every path is derived from the environment once, at start-up. */
export type Paths = {
  configDir: string;
  configFile: string;
  commandsDir: string;
  skillsDir: string;
  stateDir: string;
  dbFile: string;
  attachmentsDir: string;
  socketFile: string;
  logsDir: string;
};

export function resolvePaths(env: Env = process.env): Paths {
  const home = env.HOME || homedir();
  const configDir = env.LEMBAS_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(home, ".config"), "lembas");
  const stateDir = env.LEMBAS_STATE_DIR || join(env.XDG_STATE_HOME || join(home, ".local", "state"), "lembas");
  return {
    configDir,
    configFile: join(configDir, "config.yaml"),
    commandsDir: join(configDir, "commands"),
    skillsDir: join(configDir, "skills"),
    stateDir,
    dbFile: join(stateDir, "lembas.db"),
    attachmentsDir: join(stateDir, "attachments"),
    socketFile: join(stateDir, "service.sock"),
    logsDir: join(stateDir, "logs"),
  };
}

/** `~` and `~/x` become absolute under the home directory; anything else is returned as is. */
export function expandHome(path: string, env: Env = process.env): string {
  const home = env.HOME || homedir();
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return path;
}
