import type { Config, Connection, Remote } from "./schema.ts";
import { EFFORTS, isOneOf, MODEL_APIS, MODES, THEME_NAMES } from "./key-values.ts";
import { parseRule } from "./permission-rules.ts";
import { PERSONALITY_NAMES } from "./personalities.ts";

/**
 * config.yaml read without its schema: what the schema (config/schema.ts) would return, for a file
 * whose every key is one this reader knows, in its usual shape. Anything else (a key it does not
 * know, a value the schema might refuse or rewrite, MCP servers, hooks) is null, and the schema
 * checks the file and says what is wrong with it: building the schema and zod's first parse cost
 * a one-shot more than the rest of its config (bench/RUN.md).
 *
 * A key added to the schema needs nothing here to work: a file that sets it goes to the schema.
 * A key with a default must be added here (the `Config` type says so), and
 * test/config/fast-read.test.ts holds every key's reading to the schema's.
 */
export function readConfigFast(raw: Record<string, unknown>): Config | null {
  for (const key of Object.keys(raw)) if (!TOP_KEYS.has(key)) return null;
  const connections = record(raw.connections, /^[A-Za-z0-9][A-Za-z0-9._-]*$/, connection);
  const remote = strictObject(raw.remote, REMOTE_KEYS, remoteOf);
  const protectedPaths = list(raw.protected, nonEmpty, []);
  const tools = strictObject(raw.tools, TOOLS_KEYS, (o) => {
    const envPassthrough = list(o.env_passthrough, (v) => typeof v === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v), []);
    return envPassthrough && { env_passthrough: envPassthrough };
  });
  const fetch = strictObject(raw.fetch, FETCH_KEYS, (o) => {
    const allowPrivate = o.allow_private === undefined ? false : typeof o.allow_private === "boolean" ? o.allow_private : list(o.allow_private, nonEmpty, null);
    return allowPrivate === null ? null : { allow_private: allowPrivate };
  });
  const mcpTimeouts = strictObject(raw.mcp_timeouts, MCP_TIMEOUT_KEYS, (o) => {
    const start = o.start === undefined ? 10 : positive(o.start);
    const call = o.call === undefined ? 60 : positive(o.call);
    return start === null || call === null ? null : { start, call };
  });
  const permissions = strictObject(raw.permissions, PERMISSION_KEYS, (o) => {
    const allow = list(o.allow, isRule, []);
    const ask = list(o.ask, isRule, []);
    const deny = list(o.deny, isRule, []);
    return allow && ask && deny && { allow, ask, deny };
  });
  const tui = strictObject(raw.tui, TUI_KEYS, (o) => {
    if (o.vim !== undefined && typeof o.vim !== "boolean") return null;
    if (o.notify !== undefined && !isOneOf(NOTIFY, o.notify)) return null;
    return { vim: o.vim ?? false, notify: o.notify ?? "desktop" };
  });
  if (!connections || !remote || !protectedPaths || !tools || !fetch || !mcpTimeouts || !permissions || !tui) return null;
  // Servers and hooks go to the schema, which builds theirs only when a file has some.
  if (!emptyOrAbsent(raw.mcp) || !emptyOrAbsent(raw.hooks)) return null;
  // web_search names an MCP tool, so a file that sets it has servers: the schema's.
  if (raw.web_search !== undefined && raw.web_search !== null) return null;
  // Language servers of the person's own go to the schema, which builds theirs only then.
  if (!emptyOrAbsent(raw.lsp)) return null;
  if (raw.lsp_warnings !== undefined && typeof raw.lsp_warnings !== "boolean") return null;
  const model = nullableString(raw.model);
  const embedding = nullableString(raw.embedding);
  const personalityCustom = raw.personality_custom === undefined || raw.personality_custom === null || typeof raw.personality_custom === "string" ? (raw.personality_custom ?? null) : undefined;
  const instructions = raw.instructions === undefined || raw.instructions === null || typeof raw.instructions === "string" ? (raw.instructions ?? null) : undefined;
  if (model === undefined || embedding === undefined || personalityCustom === undefined || instructions === undefined) return null;
  if (raw.effort !== undefined && !isOneOf(EFFORTS, raw.effort)) return null;
  if (raw.mode !== undefined && !isOneOf(MODES, raw.mode)) return null;
  if (raw.theme !== undefined && !isOneOf(THEME_NAMES, raw.theme)) return null;
  if (raw.library !== undefined && raw.library !== null && raw.library !== "local" && raw.library !== "lembas") return null;
  if (raw.index !== undefined && typeof raw.index !== "boolean") return null;
  if (raw.personality !== undefined && raw.personality !== null && !(typeof raw.personality === "string" && PERSONALITY_NAMES.includes(raw.personality))) return null;
  return {
    model,
    effort: raw.effort ?? "medium",
    mode: raw.mode ?? "edit",
    connections,
    remote,
    protected: protectedPaths,
    tools,
    fetch,
    mcp: {},
    mcp_timeouts: mcpTimeouts,
    hooks: {},
    permissions,
    web_search: null,
    lsp: {},
    lsp_warnings: raw.lsp_warnings ?? false,
    embedding,
    library: raw.library ?? null,
    index: raw.index ?? true,
    personality: (raw.personality as string | null | undefined) ?? null,
    personality_custom: personalityCustom,
    instructions,
    theme: raw.theme ?? "dark",
    tui,
  };
}

const TOP_KEYS: ReadonlySet<string> = new Set([
  "model",
  "effort",
  "mode",
  "connections",
  "remote",
  "protected",
  "tools",
  "fetch",
  "mcp",
  "mcp_timeouts",
  "hooks",
  "permissions",
  "web_search",
  "lsp",
  "lsp_warnings",
  "embedding",
  "library",
  "index",
  "personality",
  "personality_custom",
  "instructions",
  "theme",
  "tui",
]);
const REMOTE_KEYS: ReadonlySet<string> = new Set(["roots", "max_mode", "require_trust", "terminal", "terminal_integration", "approval_timeout"]);
const TOOLS_KEYS: ReadonlySet<string> = new Set(["env_passthrough"]);
const FETCH_KEYS: ReadonlySet<string> = new Set(["allow_private"]);
const MCP_TIMEOUT_KEYS: ReadonlySet<string> = new Set(["start", "call"]);
const PERMISSION_KEYS: ReadonlySet<string> = new Set(["allow", "ask", "deny"]);
const TUI_KEYS: ReadonlySet<string> = new Set(["vim", "notify"]);
const NOTIFY = ["bell", "desktop", "off"] as const;
const CONNECTION_FLAGS = ["supports_tools", "text_tool_calls", "reasoning", "vision"] as const;
const CONNECTION_COUNTS = ["context", "context_length", "max_output"] as const;

/** The keys this reader takes, by mapping ("" is the file's top), for the test that holds them to the schema's. */
export const FAST_READ_KEYS: Readonly<Record<string, ReadonlySet<string>>> = {
  "": TOP_KEYS,
  remote: REMOTE_KEYS,
  tools: TOOLS_KEYS,
  fetch: FETCH_KEYS,
  mcp_timeouts: MCP_TIMEOUT_KEYS,
  permissions: PERMISSION_KEYS,
  tui: TUI_KEYS,
  "connections.*": new Set(["base_url", "api", "api_key_env", "api_key", ...CONNECTION_COUNTS, ...CONNECTION_FLAGS, "idle_timeout", "headers", "body"]),
};

function remoteOf(o: Record<string, unknown>): Remote | null {
  const roots = list(o.roots, (v) => typeof v === "string" && (v === "~" || v.startsWith("~/") || v.startsWith("/")), ["~/work"]);
  if (!roots) return null;
  if (o.max_mode !== undefined && !isOneOf(MODES, o.max_mode)) return null;
  for (const flag of ["require_trust", "terminal", "terminal_integration"] as const) if (o[flag] !== undefined && typeof o[flag] !== "boolean") return null;
  const approvalTimeout = o.approval_timeout === undefined ? 300 : count(o.approval_timeout);
  if (approvalTimeout === null) return null;
  return {
    roots,
    max_mode: o.max_mode ?? "edit",
    require_trust: (o.require_trust as boolean | undefined) ?? true,
    terminal: (o.terminal as boolean | undefined) ?? false,
    terminal_integration: (o.terminal_integration as boolean | undefined) ?? true,
    approval_timeout: approvalTimeout,
  };
}

function connection(value: unknown): Connection | null {
  if (!isMapping(value)) return null;
  const keys = FAST_READ_KEYS["connections.*"];
  for (const key of Object.keys(value)) if (!keys?.has(key)) return null;
  const out: Connection = { base_url: "" };
  // A URL the schema would trim or strip of tabs and newlines is left to it.
  if (typeof value.base_url !== "string" || /\s/.test(value.base_url) || !URL.canParse(value.base_url)) return null;
  out.base_url = value.base_url;
  if (value.api !== undefined) {
    if (!isOneOf(MODEL_APIS, value.api)) return null;
    out.api = value.api;
  }
  for (const key of ["api_key_env", "api_key"] as const) {
    if (value[key] === undefined) continue;
    if (!nonEmpty(value[key])) return null;
    out[key] = value[key];
  }
  for (const key of CONNECTION_COUNTS) {
    if (value[key] === undefined) continue;
    const n = count(value[key]);
    if (n === null) return null;
    out[key] = n;
  }
  for (const key of CONNECTION_FLAGS) {
    if (value[key] === undefined) continue;
    if (typeof value[key] !== "boolean") return null;
    out[key] = value[key];
  }
  if (value.idle_timeout !== undefined) {
    const seconds = positive(value.idle_timeout);
    if (seconds === null || seconds > 3600) return null;
    out.idle_timeout = seconds;
  }
  if (value.headers !== undefined) {
    const headers = record(value.headers, /^./s, (v) => (typeof v === "string" ? v : null));
    if (!headers) return null;
    out.headers = headers;
  }
  if (value.body !== undefined) {
    const body = record(value.body, /^./s, (v) => v);
    if (!body) return null;
    out.body = body;
  }
  return Object.fromEntries(CONNECTION_ORDER.filter((key) => key in out).map((key) => [key, out[key]])) as Connection;
}

/** The schema's order of a connection's keys, which its output has. */
const CONNECTION_ORDER = ["base_url", "api", "api_key_env", "api_key", "context", "context_length", "max_output", "supports_tools", "text_tool_calls", "reasoning", "idle_timeout", "headers", "body", "vision"] as const;

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A mapping of only `keys`, read by `read`; absent is the schema's default, which is `read({})`. */
function strictObject<T>(value: unknown, keys: ReadonlySet<string>, read: (o: Record<string, unknown>) => T | null): T | null {
  if (value === undefined) return read({});
  if (!isMapping(value)) return null;
  for (const key of Object.keys(value)) if (!keys.has(key)) return null;
  return read(value);
}

/** A mapping whose names match `name` and whose values `read` takes; absent is empty. */
function record<T>(value: unknown, name: RegExp, readItem: (v: unknown) => T | null): Record<string, T> | null {
  if (value === undefined) return {};
  if (!isMapping(value)) return null;
  const out: Record<string, T> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === "__proto__" || !name.test(key)) return null;
    const read = readItem(item);
    if (read === null) return null;
    out[key] = read;
  }
  return out;
}

/** A list whose every item passes `ok`; absent is `absent`. */
function list(value: unknown, ok: (v: unknown) => boolean, absent: string[] | null): string[] | null {
  if (value === undefined) return absent === null ? null : [...absent];
  if (!Array.isArray(value) || !value.every(ok)) return null;
  return [...(value as string[])];
}

function nonEmpty(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

function isRule(value: unknown): boolean {
  return typeof value === "string" && "rule" in parseRule(value);
}

/** A string of at least a character or null; absent is null; undefined when the schema would refuse it. */
function nullableString(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return null;
  return nonEmpty(value) ? value : undefined;
}

/** A whole number above 0 (zod's `int().positive()`), or null. */
function count(value: unknown): number | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : null;
}

/** A finite number above 0, or null. */
function positive(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : null;
}

function emptyOrAbsent(value: unknown): boolean {
  return value === undefined || (isMapping(value) && Object.keys(value).length === 0);
}
