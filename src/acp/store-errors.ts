import { acp } from "../rpc/agent.ts";
import { storeFailure } from "../store/db.ts";
import type { AgentHost } from "./host.ts";

/**
 * A failure of the store met serving a request (a full disk, say), as the error the client is
 * answered: -32603 whose message is the sentence, also logged (the service's log; stderr for an
 * editor). Null for any other error, which keeps its own answer.
 */
export function storeRequestError(error: unknown, host: Pick<AgentHost, "paths" | "log">): acp.RequestError | null {
  const failure = storeFailure(error, host.paths.dbFile);
  if (!failure) return null;
  if (host.log) host.log(failure.message);
  else console.error(`lembas: ${failure.message}`);
  return new acp.RequestError(-32603, failure.message);
}
