/** The environment the service's sessions run their commands in: the kept login-shell one, read (and kept) at start when there is none. */
import type { Env, Paths } from "../config/paths.ts";
import { errorMessage } from "../errors.ts";
import { captureLoginEnv, sessionBaseEnv } from "./login-env.ts";
import { type KeepRules, keptVariables, loadLoginEnv, loginEnvFile, saveLoginEnv } from "./login-env-file.ts";

export async function serviceSessionEnv(paths: Paths, rules: KeepRules, log: (line: string) => void, env: Env = process.env): Promise<Env> {
  const kept = loadLoginEnv(paths);
  if (kept) return sessionBaseEnv(keptAsNow(paths, kept.shell, kept.env, rules, log), env);
  const captured = await captureLoginEnv(env);
  if (!captured.ok) {
    log(`could not read the login shell's environment (${captured.why}): the sessions' commands get the service's own`);
    return env;
  }
  try {
    const saved = saveLoginEnv(paths, captured.shell, captured.env, rules);
    log(`kept ${captured.shell}'s login environment for the sessions' commands (${loginEnvFile(paths)}; lembas service install reads it again)`);
    return sessionBaseEnv(saved.env, env);
  } catch (error) {
    log(`could not keep the login shell's environment in ${loginEnvFile(paths)}: ${errorMessage(error)}`);
    return sessionBaseEnv(keptVariables(captured.env, rules), env);
  }
}

/**
 * A kept environment as this config keeps it: variables an older lembas (or an older config) kept
 * and no tool would now get are dropped, from the file too.
 */
function keptAsNow(paths: Paths, shell: string, env: Record<string, string>, rules: KeepRules, log: (line: string) => void): Record<string, string> {
  const now = keptVariables(env, rules);
  const dropped = Object.keys(env).filter((name) => !Object.hasOwn(now, name));
  if (dropped.length === 0) return now;
  try {
    saveLoginEnv(paths, shell, env, rules);
    log(`dropped ${dropped.join(", ")} from ${loginEnvFile(paths)}: no tool of the sessions gets them (tools.env_passthrough names those that should)`);
  } catch (error) {
    log(`could not drop ${dropped.join(", ")} from ${loginEnvFile(paths)}: ${errorMessage(error)}`);
  }
  return now;
}
