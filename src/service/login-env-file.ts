/** The login-shell environment kept for the service, `<state>/login-env.json` (mode 0600: it may hold an agent socket's path and the like). */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { Paths } from "../config/paths.ts";
import { writeAtomic } from "../config/save.ts";
import type { Config } from "../config/schema.ts";
import { referencedVars } from "../mcp/expand.ts";
import { toolEnvironment } from "../tools/environment.ts";

const Kept = z.object({ capturedAt: z.string(), shell: z.string(), env: z.record(z.string(), z.string()) });
export type KeptLoginEnv = z.infer<typeof Kept>;

/** What decides which variables are worth keeping: the tools' rules, and the MCP servers config.yaml names. */
export type KeepRules = Pick<Config, "connections" | "tools" | "mcp">;

export function loginEnvFile(paths: Paths): string {
  return join(paths.stateDir, "login-env.json");
}

/**
 * The variables worth keeping on disk: those the sessions' tools are given (src/tools/environment.ts
 * leaves out the ones named like secrets, unless `tools.env_passthrough` names them, and the
 * connections' keys), and those config.yaml's MCP servers read (`${VAR}`). A secret no tool would
 * get is never copied into the state directory.
 */
export function keptVariables(env: Record<string, string>, rules: KeepRules): Record<string, string> {
  const forTools = toolEnvironment(rules, env);
  const read = new Set(Object.values(rules.mcp).flatMap((server) => referencedVars(JSON.stringify(server))));
  return Object.fromEntries(Object.entries(env).filter(([name]) => Object.hasOwn(forTools, name) || read.has(name)));
}

/** Keeps what of the environment is worth keeping (keptVariables); what was kept. */
export function saveLoginEnv(paths: Paths, shell: string, env: Record<string, string>, rules: KeepRules): KeptLoginEnv {
  const kept: KeptLoginEnv = { capturedAt: new Date().toISOString(), shell, env: keptVariables(env, rules) };
  writeAtomic(loginEnvFile(paths), `${JSON.stringify(kept)}\n`, 0o600);
  return kept;
}

/** The kept environment; null when there is none, or it is not what this lembas writes. */
export function loadLoginEnv(paths: Paths): KeptLoginEnv | null {
  const file = loginEnvFile(paths);
  if (!existsSync(file)) return null;
  try {
    const parsed = Kept.safeParse(JSON.parse(readFileSync(file, "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
