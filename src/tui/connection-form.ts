import { setConfigKey } from "../config/save.ts";
import type { Connection } from "../config/schema.ts";
import { listModels, type ModelInfo } from "../model/models.ts";
import { listLogins } from "../store/logins.ts";
import type { CommandHost } from "./command-host.ts";
import { Form } from "./form.ts";
import { waitMs } from "../timing.ts";

/** A connection checked by listing its models: what config.yaml gets once a model is picked. */
export type CheckedConnection = { name: string; connection: Connection; models: ModelInfo[] };

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The form that adds an OpenAI-compatible connection: its base URL, an API key if it needs one,
 * a name if the person wants one. A URL that does not list chat models stays in the form with why.
 */
export function connectionForm(app: CommandHost, listed: (checked: CheckedConnection) => void, cancel: () => void): Form {
  return new Form(
    "Add an OpenAI-compatible connection",
    ["Ollama, LM Studio, llama.cpp, vLLM or a hosted API: its base URL, which answers GET /models."],
    [
      { label: "base URL", placeholder: "http://127.0.0.1:11434/v1" },
      { label: "API key (optional)", secret: true },
      { label: "name (optional)", placeholder: "from the host" },
    ],
    app.theme,
    {
      async submit([url = "", apiKey = "", name = ""], signal) {
        const checked = await checkConnection(app, url, apiKey, name, signal);
        if (typeof checked === "string") return checked;
        // Left with Esc while its models were listed: nothing was written, and no picker opens.
        if (signal.aborted) return null;
        listed(checked);
        return null;
      },
      cancel,
      changed: () => app.render(),
    },
  );
}

/** The connection's chat models, or the one line saying why there are none. */
async function checkConnection(app: CommandHost, input: string, apiKey: string, wanted: string, signal: AbortSignal): Promise<CheckedConnection | string> {
  const baseUrl = baseUrlOf(input);
  if (!baseUrl) return `${input || "(nothing)"} is not an http:// or https:// URL, e.g. http://127.0.0.1:11434/v1`;
  const taken = takenNames(app);
  const name = wanted || nameFor(baseUrl, taken);
  if (!NAME.test(name)) return `the name ${name}: a name is letters, digits, . _ -`;
  if (taken.has(name)) return `the name ${name} is taken already (by a connection or a login): give another`;
  const listed = await listModels({ name, baseUrl, apiKey: apiKey || null }, { timeoutMs: waitMs("CONNECTION_CHECK_MS", 10_000), signal });
  if (!listed.ok) return listed.error.message;
  if (listed.value.chat.length === 0) return `${baseUrl} lists no chat models: load or pull one there, then try again`;
  return { name, connection: { base_url: baseUrl, ...(apiKey ? { api_key: apiKey } : {}) }, models: listed.value.chat };
}

/** Writes the connection and the model picked to config.yaml (the rest of the file kept). Returns the model's ref. */
export function saveConnection(configFile: string, checked: CheckedConnection, modelId: string): string {
  const ref = `${checked.name}/${modelId}`;
  setConfigKey(configFile, `connections.${checked.name}`, checked.connection);
  setConfigKey(configFile, "model", ref);
  return ref;
}

function baseUrlOf(input: string): string | null {
  if (!URL.canParse(input)) return null;
  const url = new URL(input);
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  return url.href.replace(/\/+$/, "");
}

function takenNames(app: CommandHost): Set<string> {
  const { ctx } = app.runtime;
  return new Set([...Object.keys(ctx.config().connections), ...listLogins(ctx.db()).map((l) => l.name)]);
}

/** local for this device's servers; else the host's name (api.openai.com → openai); a number after a taken one. */
function nameFor(baseUrl: string, taken: ReadonlySet<string>): string {
  const host = new URL(baseUrl).hostname;
  const loopback = host === "localhost" || host === "[::1]" || /^127\./.test(host);
  const labels = host.split(".").filter(Boolean);
  const ip = /^[\d.]+$/.test(host) || host.includes(":");
  const raw = loopback ? "local" : ip ? "server" : labels.length >= 2 ? (labels.at(-2) ?? host) : (labels[0] ?? "server");
  const base = raw.replace(/[^A-Za-z0-9._-]/g, "-").replace(/^[^A-Za-z0-9]+/, "") || "server";
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}
