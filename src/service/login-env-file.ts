/** The login-shell environment kept for the service, `<state>/login-env.json` (mode 0600: it may hold an agent socket's path and the like). */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { Paths } from "../config/paths.ts";
import { writeAtomic } from "../config/save.ts";

const Kept = z.object({ capturedAt: z.string(), shell: z.string(), env: z.record(z.string(), z.string()) });
export type KeptLoginEnv = z.infer<typeof Kept>;

export function loginEnvFile(paths: Paths): string {
  return join(paths.stateDir, "login-env.json");
}

export function saveLoginEnv(paths: Paths, shell: string, env: Record<string, string>): void {
  const kept: KeptLoginEnv = { capturedAt: new Date().toISOString(), shell, env };
  writeAtomic(loginEnvFile(paths), `${JSON.stringify(kept)}\n`, 0o600);
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
