import type { Env } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { type Endpoint, endpointFromConnection, endpointFromLogin } from "../model/endpoint.ts";

/** The embedding model a ref names: the endpoint requests go to, and the id sent as `model`. */
export type EmbeddingTarget = { ref: string; endpoint: Endpoint; model: string };

export type TargetResult = { ok: true; value: EmbeddingTarget } | { ok: false; error: string };

/**
 * config.yaml's `embedding:` as an endpoint, the way the model layer names models: `<connection>/<model>`
 * for one of config.yaml's connections, `<login>/<model>` for a login (what logging in writes).
 */
export function embeddingTarget(config: Config, logins: readonly { name: string; url: string; token: string }[], env: Env): TargetResult {
  const ref = config.embedding;
  if (!ref) {
    return { ok: false, error: "no embedding model is set: set embedding: in config.yaml to one, e.g. local/nomic-embed-text (logging in to an instance sets it)" };
  }
  const slash = ref.indexOf("/");
  const name = slash > 0 ? ref.slice(0, slash) : "";
  const model = slash > 0 ? ref.slice(slash + 1) : "";
  if (!name || !model) return { ok: false, error: `embedding: ${ref} is not a model ref: write it <connection>/<model>` };
  const conn = config.connections[name];
  if (conn) return { ok: true, value: { ref, model, endpoint: endpointFromConnection(name, conn, env) } };
  const login = logins.find((l) => l.name === name);
  if (login) return { ok: true, value: { ref, model, endpoint: endpointFromLogin(login) } };
  return { ok: false, error: `embedding: ${ref} names ${name}, which is neither a connection in config.yaml nor a login` };
}
