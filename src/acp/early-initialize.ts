/**
 * initialize's answer on `serve --stdio`, given the moment the request is read, before zod, the
 * dispatcher and the engine load: an editor waits on it, and the answer on stdio depends on none
 * of them. The request still reaches the dispatcher afterwards (which marks the connection
 * initialized and runs the server's handler), and its answer, the same one, is dropped by the
 * transport.
 *
 * Only a request that surely passes ACP's params check (rpc/acp-params.ts) is answered here:
 * params an object and protocolVersion an integer from 0 to 65535 (every other field is taken as
 * it comes, with a default where it is wrong). Anything else is left to the dispatcher.
 */
import type { AnyMessage } from "../rpc/stream.ts";
import { initializeResult, LEMBAS_PROTOCOL } from "./agent.ts";

export function earlyInitializeAnswer(message: unknown): AnyMessage | null {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return null;
  const m = message as { method?: unknown; id?: unknown; params?: unknown };
  if (m.method !== "initialize" || !(typeof m.id === "string" || typeof m.id === "number")) return null;
  if (typeof m.params !== "object" || m.params === null || Array.isArray(m.params)) return null;
  const version = (m.params as { protocolVersion?: unknown }).protocolVersion;
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 0 || version > 65535) return null;
  const result = initializeResult({ transport: "stdio", config: null, protocol: LEMBAS_PROTOCOL, limits: null, connection: null });
  return { jsonrpc: "2.0", id: m.id, result };
}
