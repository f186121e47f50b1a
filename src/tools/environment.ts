import type { Env } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";

/** Names that say "secret": …_TOKEN, …_KEY, …_SECRET (or just TOKEN, KEY, SECRET), and anything with PASSWORD. */
const SECRET_NAME = /(^|_)(TOKEN|KEY|SECRET)$|PASSWORD/i;

/**
 * Never passed on: CDPATH makes `cd x` land elsewhere than the approval judged, BASH_ENV and ENV
 * make bash run a file before the command, DBUS_SESSION_BUS_ADDRESS leads to a session bus
 * (systemd, through it) that runs commands outside the sandbox.
 */
const UNSAFE = new Set(["CDPATH", "BASH_ENV", "ENV", "DBUS_SESSION_BUS_ADDRESS"]);

export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * The environment a tool's command (bash, an MCP server) is started with: ENV without the
 * secrets lembas knows of or can guess. Left out are the variables named like secrets, the
 * variables the connections read their keys from (`api_key_env`), and any variable whose value
 * is a connection's `api_key`, whatever its name; a variable named in `tools.env_passthrough`
 * is kept all the same, because the person said so. CDPATH, BASH_ENV, ENV and
 * DBUS_SESSION_BUS_ADDRESS always go. The variables naming the person's tmux, editor or container
 * engine (TMUX, NVIM, DOCKER_HOST…) stay: the sandbox leaves them out where it closes those
 * servers (sandbox-sockets.ts), and without it the person's commands use them.
 */
export function toolEnvironment(config: Pick<Config, "connections" | "tools">, env: Env): Record<string, string> {
  const passthrough = new Set(config.tools.env_passthrough);
  const connections = Object.values(config.connections);
  const keyNames = new Set(connections.flatMap((c) => (c.api_key_env ? [c.api_key_env] : [])));
  const keyValues = new Set(connections.flatMap((c) => (c.api_key ? [c.api_key] : [])));
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || UNSAFE.has(name)) continue;
    const secret = looksSecret(name) || keyNames.has(name) || keyValues.has(value);
    if (secret && !passthrough.has(name)) continue;
    kept[name] = value;
  }
  return kept;
}
