/** The environment the service's sessions run their commands in: the kept login-shell one, read (and kept) at start when there is none. */
import type { Env, Paths } from "../config/paths.ts";
import { captureLoginEnv, sessionBaseEnv } from "./login-env.ts";
import { loadLoginEnv, loginEnvFile, saveLoginEnv } from "./login-env-file.ts";

export async function serviceSessionEnv(paths: Paths, log: (line: string) => void, env: Env = process.env): Promise<Env> {
  const kept = loadLoginEnv(paths);
  if (kept) return sessionBaseEnv(kept.env, env);
  const captured = await captureLoginEnv(env);
  if (!captured.ok) {
    log(`could not read the login shell's environment (${captured.why}): the sessions' commands get the service's own`);
    return env;
  }
  try {
    saveLoginEnv(paths, captured.shell, captured.env);
    log(`kept ${captured.shell}'s login environment for the sessions' commands (${loginEnvFile(paths)}; lembas service install reads it again)`);
  } catch (error) {
    log(`could not keep the login shell's environment in ${loginEnvFile(paths)}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return sessionBaseEnv(captured.env, env);
}
