/**
 * `lembas doctor --probe`: whether a model takes tools, from a one-token request with one
 * trivial tool (and tool_choice "auto" where the server's family takes it). A server whose
 * model has no tool support answers 400 in its own words (Ollama: "… does not support tools";
 * vLLM: "\"auto\" tool choice requires --enable-auto-tool-choice …"; llama.cpp: "tools param
 * requires --jinja flag"), which the answer keeps. The request is in the API the connection
 * speaks for the model (apis.ts).
 */
import { modelApi } from "./apis.ts";
import { dialectById } from "./dialects.ts";
import { type Endpoint, endpointHeaders } from "./endpoint.ts";
import { displayUrl, networkError, readBounded, serverMessage } from "./errors.ts";
import { describeWait } from "./retry.ts";
import { waitMs } from "../timing.ts";

export type ToolsProbe = { tools: "yes" | "no" | "unknown"; said: string | null };

const PING = {
  type: "function",
  function: { name: "ping", description: "Answers pong.", parameters: { type: "object", properties: {} } },
} as const;

/** Words servers use when they refuse tools (a 4xx naming none of them is "unknown"). */
const REFUSES_TOOLS = /tool|function/i;

export async function probeTools(
  endpoint: Endpoint,
  model: string,
  options: { timeoutMs?: number; fetch?: (input: string, init: RequestInit) => Promise<Response> } = {},
): Promise<ToolsProbe> {
  const { path, body } = probeRequest(endpoint, model);
  const fetchFn = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? waitMs("MODEL_PROBE_MS", 15_000);
  const signal = AbortSignal.timeout(timeoutMs);
  // A server that hangs is said as one, not as a request "stopped" (which reads as the person's doing).
  const silent = (): ToolsProbe => ({ tools: "unknown", said: `the model server at ${displayUrl(endpoint.baseUrl)} did not answer within ${describeWait(timeoutMs)}` });
  let response: Response;
  try {
    response = await fetchFn(`${endpoint.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...endpointHeaders(endpoint) },
      body: JSON.stringify(body),
      signal,
    });
  } catch (cause) {
    if (signal.aborted) return silent();
    return { tools: "unknown", said: networkError(endpoint, cause).message };
  }
  const text = await readBounded(response);
  if (signal.aborted) return silent();
  if (response.ok) return { tools: "yes", said: null };
  const said = serverMessage(text) || `HTTP ${response.status}`;
  if (response.status >= 400 && response.status < 500 && response.status !== 401 && response.status !== 403 && response.status !== 429 && REFUSES_TOOLS.test(said)) {
    return { tools: "no", said };
  }
  return { tools: "unknown", said: `HTTP ${response.status}: ${said}` };
}

/** The one-token request with the ping tool, in the model's API. */
function probeRequest(endpoint: Endpoint, model: string): { path: string; body: Record<string, unknown> } {
  const { name, description, parameters } = PING.function;
  const extra = endpoint.body ?? {};
  switch (modelApi(endpoint, model)) {
    case "messages":
      // docs.anthropic.com/en/api/messages: max_tokens is required; a tool is name, description, input_schema.
      return { path: "/messages", body: { model, max_tokens: 1, messages: [{ role: "user", content: "Say ok." }], tools: [{ name, description, input_schema: parameters }], ...extra } };
    case "responses":
      // platform.openai.com/docs/api-reference/responses/create: max_output_tokens is at least 16; a function tool is flat.
      return { path: "/responses", body: { model, input: "Say ok.", max_output_tokens: 16, store: false, tools: [{ type: "function", name, description, parameters }], ...extra } };
    case "chat": {
      const dialect = dialectById(endpoint.dialect);
      const body = { model, messages: [{ role: "user", content: "Say ok." }], max_tokens: 1, stream: false, tools: [PING], ...(dialect.toolChoice ? { tool_choice: "auto" } : {}), ...extra };
      return { path: "/chat/completions", body };
    }
  }
}
