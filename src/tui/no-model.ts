import { localPorts } from "../model/local-ports.ts";
import { LOCAL_PORTS } from "../model/models.ts";
import { listLogins } from "../store/logins.ts";
import type { TuiRuntime } from "./runtime.ts";

/** What the terminal looked for when it found no model: the first-run screen says it. */
export type NoModel = { configFile: string; ports: readonly number[] };

/**
 * Null when the terminal has a model to talk to: a connection in config.yaml, a login, or a local
 * server found on the usual ports. Only with none of them is it a first run (a connection that
 * does not answer is not: its turns say why).
 */
export async function findNoModel(runtime: TuiRuntime): Promise<NoModel | null> {
  const { ctx } = runtime;
  if (Object.keys(ctx.config().connections).length > 0) return null;
  if (listLogins(ctx.db()).length > 0) return null;
  // With neither, the registry's list is the local probe's.
  if ((await runtime.models.refs()).length > 0) return null;
  return { configFile: ctx.paths.configFile, ports: localPorts(process.env.LEMBAS_LOCAL_PORTS) ?? LOCAL_PORTS };
}
