import type { Env } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import type { Finding } from "./doctor-finding.ts";

/**
 * A connection whose api_key_env names a variable that is not set sends its requests with no key:
 * the server's refusal would not say why, so doctor does. An api_key beside it wins, and is fine.
 */
export function checkKeyVariables(config: Config, env: Env): Finding[] {
  return Object.entries(config.connections).flatMap(([name, conn]): Finding[] => {
    const variable = conn.api_key_env;
    if (variable === undefined || conn.api_key !== undefined || env[variable]) return [];
    const state = env[variable] === undefined ? "is not set" : "is empty";
    return [
      {
        ok: false,
        text: `connection ${name}: api_key_env names ${variable}, which ${state} here, so its requests go without a key`,
        todo: `export ${variable}=… where lembas runs (for the service too), or set api_key under the connection`,
      },
    ];
  });
}
