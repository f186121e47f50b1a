import { UploadError } from "../front/blocks.ts";
import { acp } from "../rpc/agent.ts";
import { storeFailure } from "../store/db.ts";
import type { AgentHost } from "./host.ts";

/**
 * A failure of the device's disk met serving a request (the store's, or an upload's, on a full
 * disk say), as the error the client is answered: -32603 whose message is the sentence, also
 * logged (the service's log; stderr for an editor). Null for any other error, which keeps its own answer.
 */
export function storeRequestError(error: unknown, host: Pick<AgentHost, "paths" | "log">): acp.RequestError | null {
  const failure = error instanceof UploadError ? error : storeFailure(error, host.paths.dbFile);
  if (!failure) return null;
  if (host.log) host.log(failure.message);
  else console.error(`lembas: ${failure.message}`);
  return new acp.RequestError(-32603, failure.message);
}
