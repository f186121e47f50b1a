import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/schema.ts";
import type { Db } from "../store/db.ts";
import { listLogins } from "../store/logins.ts";
import type { Vars } from "./expand.ts";
import { PROJECT_MCP_FILE } from "./from-project.ts";
import type { BackgroundProbes } from "./instance-probes.ts";
import type { McpWiring } from "./wiring-types.ts";

/**
 * Sessions' MCP servers as every front end gives the engine them: gathered from the sources
 * (src/mcp/session-servers.ts, loaded only for a session that may have a server) and run by an
 * McpHub with config.yaml's `mcp_timeouts`.
 */
export function mcpWiring(input: { db: Db; config: Pick<Config, "mcp" | "mcp_timeouts">; vars: Vars }): McpWiring {
  const { db, config, vars } = input;
  // The instances' /mcp probes no session waits for, made with the first session that has a login.
  let probes: Promise<BackgroundProbes> | undefined;
  return {
    gather(place, editor) {
      const logins = listLogins(db);
      const none = editor.length === 0 && Object.keys(config.mcp).length === 0 && logins.length === 0 && !existsSync(join(place.root, PROJECT_MCP_FILE));
      if (none) return null;
      probes ??= import("./instance-probes.ts").then(({ BackgroundProbes }) => new BackgroundProbes(db));
      return Promise.all([import("./session-servers.ts"), probes]).then(([{ sessionServers }, background]) =>
        sessionServers({ db, config, vars, logins, root: place.root, editor, probes: background }),
      );
    },
    stop() {
      void probes?.then((p) => p.stop());
    },

    async hub(options) {
      const [{ McpHub }, { sandboxedServers }] = await Promise.all([import("./hub.ts"), import("./sandboxed.ts")]);
      const { sandbox, ...rest } = options;
      const wrap = sandbox ? sandboxedServers({ ...sandbox, env: options.env, notice: options.onNotice }) : undefined;
      return new McpHub({ ...rest, ...(wrap ? { wrap } : {}), startMs: config.mcp_timeouts.start * 1000, callMs: config.mcp_timeouts.call * 1000 });
    },
  };
}
