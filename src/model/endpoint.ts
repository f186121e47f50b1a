import type { Env } from "../config/paths.ts";
import type { Connection } from "../config/schema.ts";
import { type IdleSetting, idleSetting } from "./idle.ts";
import type { DialectId } from "./dialects.ts";
import { type ModelApi, hostApi } from "./apis.ts";

/** The Messages API version lembas speaks (docs.anthropic.com/en/api/versioning), sent as `anthropic-version`. */
export const ANTHROPIC_VERSION = "2023-06-01";

/**
 * Where chat requests go: an OpenAI-compatible base URL (ending in /v1) and the key to send.
 * The key is a secret: it is sent as `Authorization: Bearer` and never put into a message.
 */
export type Endpoint = {
  /** The device connection or login name, as config.yaml and the model refs spell it. */
  name: string;
  /** Without a trailing slash, e.g. http://127.0.0.1:11434/v1. */
  baseUrl: string;
  apiKey: string | null;
  /** The connection's context_length, for models whose /v1/models entry does not say. */
  contextLength?: number;
  /** What a person does when the server refuses the key; ends an auth error's sentence. */
  authHint?: string;
  /** How long the server may be silent (config.yaml's idle_timeout; unset: idle.ts's defaults). */
  idle?: IdleSetting;
  /** The connection's `reasoning` key: whether its models take reasoning_effort (unset: found out). */
  reasoning?: boolean;
  /** config.yaml's headers: sent with every request to it (the model listing too). */
  headers?: Record<string, string>;
  /** config.yaml's body: fields merged into every chat request body (see request.ts requestBody). */
  body?: Record<string, unknown>;
  /** config.yaml's max_output: sent as max_tokens when the request says none. */
  maxOutput?: number;
  /** config.yaml's text_tool_calls: whether answers are read for calls written as text (unset: the dialect's word). */
  textToolCalls?: boolean;
  /**
   * The API it speaks (config.yaml's `api`, else its host's: apis.ts); absent: chat completions,
   * or at api.openai.com what the model needs (apis.ts modelApi decides per request).
   */
  api?: ModelApi;
  /** The server's family, once discovery told it (see dialects.ts; absent: not known yet). */
  dialect?: DialectId;
};

/**
 * The headers of every request to an endpoint: the key (as a bearer token; for Messages as
 * `x-api-key` with `anthropic-version`: docs.anthropic.com/en/api/overview#authentication), then
 * config.yaml's headers.
 */
export function endpointHeaders(endpoint: Endpoint): Record<string, string> {
  const headers: Record<string, string> =
    endpoint.api === "messages"
      ? { "anthropic-version": ANTHROPIC_VERSION, ...(endpoint.apiKey ? { "x-api-key": endpoint.apiKey } : {}) }
      : endpoint.apiKey
        ? { authorization: `Bearer ${endpoint.apiKey}` }
        : {};
  return endpoint.headers ? { ...headers, ...endpoint.headers } : headers;
}

/** An endpoint for one of config.yaml's connections; api_key wins over api_key_env. */
export function endpointFromConnection(name: string, conn: Connection, env: Env): Endpoint {
  const endpoint: Endpoint = {
    name,
    baseUrl: trimSlashes(conn.base_url),
    apiKey: conn.api_key ?? keyFromEnv(conn.api_key_env, env),
    authHint: connectionAuthHint(name, conn, env),
    idle: idleSetting(name, conn.idle_timeout),
  };
  const api = conn.api ?? hostApi(conn.base_url);
  if (api !== null) endpoint.api = api;
  const context = conn.context ?? conn.context_length;
  if (context !== undefined) endpoint.contextLength = context;
  if (conn.reasoning !== undefined) endpoint.reasoning = conn.reasoning;
  if (conn.text_tool_calls !== undefined) endpoint.textToolCalls = conn.text_tool_calls;
  if (conn.headers && Object.keys(conn.headers).length > 0) endpoint.headers = conn.headers;
  if (conn.body && Object.keys(conn.body).length > 0) endpoint.body = conn.body;
  if (conn.max_output !== undefined) endpoint.maxOutput = conn.max_output;
  return endpoint;
}

/** An endpoint for a login: the instance's /v1 with the device token. */
export function endpointFromLogin(login: { name: string; url: string; token: string }): Endpoint {
  return {
    name: login.name,
    baseUrl: `${trimSlashes(login.url)}/v1`,
    apiKey: login.token,
    authHint: `the device token of login "${login.name}" was refused: log in to ${trimSlashes(login.url)} again`,
  };
}

function keyFromEnv(variable: string | undefined, env: Env): string | null {
  if (variable === undefined) return null;
  return env[variable] || null;
}

function connectionAuthHint(name: string, conn: Connection, env: Env): string {
  if (conn.api_key !== undefined) return `check api_key of connection "${name}" in config.yaml`;
  if (conn.api_key_env === undefined) return `set api_key_env (or api_key) for connection "${name}" in config.yaml`;
  if (!env[conn.api_key_env]) return `${conn.api_key_env} (api_key_env of connection "${name}") is not set in the environment`;
  return `check the key in ${conn.api_key_env} (api_key_env of connection "${name}")`;
}

function trimSlashes(url: string): string {
  return url.replace(/\/+$/, "");
}
