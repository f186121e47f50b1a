/**
 * `lembas doctor`: checks what lembas needs, one finding a line — the config, the database, the
 * models, the custom agents, the logins and their links and accounts, the service, the shells terminal integration supports, and
 * the sandbox the tools' commands run in.
 */
import { existsSync } from "node:fs";
import { loadConfig } from "../config/load.ts";
import type { Env, Paths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { errorMessage } from "../errors.ts";
import { type Endpoint, endpointFromConnection, endpointFromLogin } from "../model/endpoint.ts";
import { displayUrl, type ModelError } from "../model/errors.ts";
import { DEFAULT_CONTEXT } from "../model/resolved.ts";
import { ModelRegistry } from "../model/registry.ts";
import { type DialectId, dialectById } from "../model/dialects.ts";
import { discover, modelWindow, windowText } from "../model/discovery.ts";
import { probeTools } from "../model/discovery-probe.ts";
import { type ModelApi, apiLabel, modelApi } from "../model/apis.ts";
import { knownWindow } from "../model/claude-models.ts";
import { thinkingConflicts } from "../model/messages/thinking-fields.ts";
import { probeLocal } from "../model/models.ts";
import { appliedVersion, openDb } from "../store/db.ts";
import { type Login, listLogins } from "../store/logins.ts";
import { findSandbox } from "../tools/sandbox.ts";
import { type StatusReading, readServiceStatus } from "./service-status.ts";
import { localPorts } from "../model/local-ports.ts";
import { checkKeyVariables } from "./doctor-keys.ts";
import { checkMcpServers } from "./doctor-mcp.ts";
import { checkLibrary } from "./doctor-library.ts";
import { checkCodeIndex } from "./doctor-code-index.ts";
import { checkAccounts } from "./doctor-account.ts";
import { checkAgents } from "./doctor-agents.ts";
import { checkShaping } from "./doctor-shaping.ts";
import type { Finding } from "./doctor-finding.ts";

/** What the checks read; the timeouts keep `lembas doctor` quick when something does not answer. */
export type DoctorOptions = {
  paths: Paths;
  env: Env;
  /** Per model server (default 3 s). */
  modelTimeoutMs?: number;
  /** Loopback ports probed for a local model server when nothing is configured (default: the usual ones). */
  localPorts?: readonly number[];
  /** `lembas doctor --probe`: ask each connection's model whether it takes tools (a one-token request). */
  probe?: boolean;
  /** Where the project whose .mcp.json is checked is (default: the current directory). */
  cwd?: string;
};

/** `ok   …` or `fix  … — what to do`. */
export function formatFinding(finding: Finding): string {
  return finding.ok ? `ok   ${finding.text}` : `fix  ${finding.text} — ${finding.todo}`;
}

const ok = (text: string): Finding => ({ ok: true, text });
const fix = (text: string, todo: string): Finding => ({ ok: false, text, todo });

/** `lembas doctor`'s checks, as every front end runs them (the terminal's /doctor too). */
export function checkDevice(paths: Paths, opts: { probe?: boolean } = {}): Promise<Finding[]> {
  return runDoctor({ paths, env: process.env, localPorts: localPorts(process.env.LEMBAS_LOCAL_PORTS), probe: opts.probe ?? false });
}

/** Runs every check; a check that cannot run (a broken config) leaves out those that need it. */
export async function runDoctor(options: DoctorOptions): Promise<Finding[]> {
  const { paths, env } = options;
  const config = checkConfig(paths.configFile);
  const store = checkDatabase(paths.dbFile);
  const reading = await readServiceStatus(paths.socketFile);
  const [models, accounts, mcp, agents] = await Promise.all([
    config.value ? checkModels(config.value, store.logins, options) : [],
    checkAccounts(store.logins),
    config.value ? checkMcpServers({ config: config.value, dbFile: paths.dbFile, hidden: [paths.configDir, paths.stateDir], cwd: options.cwd ?? process.cwd(), env, logins: store.logins }) : [],
    config.value ? agentFindings(config.value, store.logins, options) : [],
  ]);
  return [
    config.finding,
    ...(config.value ? checkKeyVariables(config.value, env) : []),
    store.finding,
    ...models,
    ...mcp,
    ...(config.value ? checkLibrary(config.value, paths.dbFile) : []),
    ...(config.value ? checkCodeIndex(config.value, paths.dbFile, options.cwd ?? process.cwd()) : []),
    ...agents,
    ...checkShaping({ dbFile: paths.dbFile, configDir: paths.configDir, cwd: options.cwd ?? process.cwd() }),
    ...checkLinks(store.logins, reading),
    ...accounts,
    checkService(store.logins, reading),
    checkShells(env),
    checkSandbox(env, paths.stateDir),
  ];
}

/** The custom agents, their models resolved by a registry of the device's models as a session's. */
async function agentFindings(config: Config, logins: Login[], options: DoctorOptions): Promise<Finding[]> {
  const registry = new ModelRegistry(
    config,
    logins.map(({ name, url, token, protocols, providers }) => ({ name, url, token, protocols, providers })),
    options.env,
    options.localPorts,
  );
  try {
    return await checkAgents({ configDir: options.paths.configDir, cwd: options.cwd ?? process.cwd(), resolve: (ref) => registry.resolve(ref) });
  } finally {
    await registry.stop();
  }
}

function checkConfig(file: string): { finding: Finding; value: Config | null } {
  try {
    const value = loadConfig(file);
    return { finding: ok(existsSync(file) ? `config ${file}` : `config: the defaults (${file} is not written yet)`), value };
  } catch (error) {
    return { finding: fix(`config ${errorMessage(error)}`, "edit the file, or set the key with lembas config set KEY VALUE"), value: null };
  }
}

function checkDatabase(file: string): { finding: Finding; logins: Login[] } {
  if (!existsSync(file)) return { finding: ok(`database: not made yet (lembas makes ${file} when first needed)`), logins: [] };
  try {
    const db = openDb(file);
    try {
      return { finding: ok(`database ${file} (schema ${appliedVersion(db)})`), logins: listLogins(db) };
    } finally {
      db.close();
    }
  } catch (error) {
    return {
      finding: fix(`database ${file} cannot be read: ${errorMessage(error)}`, "update lembas if a newer one wrote it, else move the file aside and lembas makes a new one"),
      logins: [],
    };
  }
}

type Target = {
  label: string;
  /** How its models' refs start ("local/"; "" for a login's, whose refs follow the naming rules). */
  prefix: string;
  endpoint: Endpoint;
  where: string;
  login: boolean;
  context?: number;
  supportsTools?: boolean;
  /** The model config.yaml names on this connection, probed first. */
  preferred?: string;
};

async function checkModels(config: Config, logins: Login[], options: DoctorOptions): Promise<Finding[]> {
  const targets: Target[] = [
    ...Object.entries(config.connections).map(([name, conn]) => {
      const context = conn.context ?? conn.context_length;
      const preferred = config.model?.startsWith(`${name}/`) ? config.model.slice(name.length + 1) : undefined;
      return {
        label: `model connection ${name}`,
        prefix: `${name}/`,
        endpoint: endpointFromConnection(name, conn, options.env),
        where: `correct base_url of connection ${name} in config.yaml, or start that server`,
        login: false,
        ...(context !== undefined ? { context } : {}),
        ...(conn.supports_tools !== undefined ? { supportsTools: conn.supports_tools } : {}),
        ...(preferred ? { preferred } : {}),
      };
    }),
    ...logins.map((login) => ({
      label: `model login ${login.name}`,
      prefix: "",
      endpoint: endpointFromLogin(login),
      where: `check your network, and that ${login.url} is up`,
      login: true,
    })),
  ];
  if (targets.length === 0) return [await checkLocal(options)];
  const found = await Promise.all(targets.map((target) => checkEndpoint(target, options)));
  return found.flat();
}

/** Models whose windows are named one a line; a longer list (a hosted one) is summed up. */
const WINDOWS_SHOWN = 12;

async function checkEndpoint(target: Target, options: DoctorOptions): Promise<Finding[]> {
  const at = displayUrl(target.endpoint.baseUrl);
  const found = await discover(target.endpoint, { timeoutMs: options.modelTimeoutMs ?? 3000, login: target.login });
  if (!found.ok) return [fix(`${target.label}: ${problem(found.error)}`, todo(found.error, target))];
  const { dialect, models } = found.value;
  const findings = [ok(`${target.label} ${at}: ${serverText(target.endpoint, dialect, models.map((m) => m.id))}`)];
  findings.push(...thinkingNotice(target, models.map((m) => m.id)));
  const connection = { ...(target.context !== undefined ? { context: target.context } : {}), ...(target.endpoint.body ? { body: target.endpoint.body } : {}) };
  for (const model of models.slice(0, WINDOWS_SHOWN)) {
    const window = knownWindow(modelWindow(model, connection, dialect, DEFAULT_CONTEXT), modelApi(target.endpoint, model.id) === "messages" ? model.id : null);
    findings.push(ok(`model ${target.prefix}${model.id}: window ${windowText(window)}`));
  }
  if (models.length > WINDOWS_SHOWN) findings.push(ok(`… and ${models.length - WINDOWS_SHOWN} more models (lembas models names each one's window)`));
  if (options.probe) findings.push(await checkTools(target, { ...target.endpoint, dialect }, models.map((m) => m.id)));
  return findings;
}

/**
 * What the server is and what it speaks. The dialect names a chat-completions server's family
 * (dialects.ts), so a connection none of whose models speak chat completions is not given one:
 * "1 model; speaks Anthropic Messages", never "an OpenAI-compatible server … speaks Anthropic Messages".
 */
function serverText(endpoint: Endpoint, dialect: DialectId, ids: readonly string[]): string {
  const spoken = spokenIn(endpoint, ids);
  const chat = ids.length === 0 ? modelApi(endpoint, "") === "chat" : ids.some((id) => modelApi(endpoint, id) === "chat");
  if (!chat) return `${count(ids.length, "model")}; ${spoken}`;
  return `${dialectById(dialect).name}, ${count(ids.length, "chat model")}; ${spoken}`;
}

/** The connection's body fields a Messages request that thinks leaves out (model/messages/thinking-fields.ts), said once. */
function thinkingNotice(target: Target, ids: readonly string[]): Finding[] {
  const left = target.endpoint.body ? thinkingConflicts(target.endpoint.body) : [];
  if (left.length === 0 || !ids.some((id) => modelApi(target.endpoint, id) === "messages")) return [];
  const fields = left.join(", ");
  return [ok(`${target.label}: its body's ${fields} ${left.length === 1 ? "is" : "are"} left out of requests that think (Anthropic takes ${left.length === 1 ? "it" : "them"} only without thinking); with effort off ${left.length === 1 ? "it is" : "they are"} sent`)];
}

/** "speaks Anthropic Messages"; at api.openai.com, also which of its models speak Responses. */
function spokenIn(endpoint: Endpoint, ids: readonly string[]): string {
  const byApi = new Map<ModelApi, string[]>();
  for (const id of ids) {
    const api = modelApi(endpoint, id);
    byApi.set(api, [...(byApi.get(api) ?? []), id]);
  }
  if (byApi.size <= 1) return `speaks ${apiLabel(modelApi(endpoint, ids[0] ?? ""))}`;
  const others = [...byApi].filter(([api]) => api !== "chat").map(([api, some]) => `${apiLabel(api)} for ${some.slice(0, 3).join(", ")}${some.length > 3 ? ` and ${some.length - 3} more` : ""}`);
  return `speaks chat completions, ${others.join("; ")}`;
}

async function checkTools(target: Target, endpoint: Endpoint, ids: string[]): Promise<Finding> {
  const label = `${target.label}: tools`;
  if (target.supportsTools === false) return ok(`${label}: no (supports_tools: false in config.yaml), so its turns are plain chat`);
  const model = target.preferred && ids.includes(target.preferred) ? target.preferred : ids[0];
  if (model === undefined) return ok(`${label}: unknown (it lists no chat model to ask)`);
  const probed = await probeTools(endpoint, model);
  if (probed.tools === "yes") return ok(`${label}: yes (${model} took a request with a tool in ${apiLabel(modelApi(endpoint, model))})`);
  if (probed.tools === "no") {
    return fix(`${label}: no (${model}: ${probed.said})`, `set supports_tools: false under the connection, so its turns are plain chat, or serve the model with tool support`);
  }
  return ok(`${label}: unknown (${model}: ${probed.said})`);
}

function problem(error: ModelError): string {
  // An auth error's sentence ends in its hint (after "; "): the hint becomes the line's todo.
  return error.kind === "auth" ? (error.message.split("; ")[0] ?? error.message) : error.message;
}

function todo(error: ModelError, target: Target): string {
  if (error.kind === "auth") return target.endpoint.authHint ?? `check the key of ${target.endpoint.name}`;
  if (error.kind === "unreachable" || error.kind === "bad_request" || error.kind === "malformed") return target.where;
  return "check the server; lembas retries such failures on its own";
}

async function checkLocal(options: DoctorOptions): Promise<Finding> {
  const found = await probeLocal(options.localPorts);
  if (found) return ok(`model: no connection is set, so lembas uses the local server at ${found.baseUrl} (${count(found.models.chat.length, "chat model")})`);
  return fix(
    "model: no connection, no login, and no local model server on the usual ports",
    "add a connection to config.yaml (connections: {local: {base_url: http://127.0.0.1:11434/v1}}) or log in with lembas login URL",
  );
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

function checkLinks(logins: Login[], reading: StatusReading): Finding[] {
  return logins.map((login) => {
    const label = `login ${login.name} (${login.url})`;
    if (!reading.running) return ok(`${label}: its link is unknown while the service is not running`);
    const link = reading.status.links.find((l) => l.name === login.name);
    if (!link) return fix(`${label}: the service has no link for it`, "restart the service: lembas service install");
    if (link.state === "connected") return ok(`${label}: link connected since ${link.since}`);
    return fix(`${label}: link ${link.state} since ${link.since}`, "lembas service logs shows why; check your network, or log in again with lembas login");
  });
}

function checkService(logins: Login[], reading: StatusReading): Finding {
  if (reading.running) return ok(`service running: pid ${reading.status.pid}, lembas ${reading.status.version}`);
  if (logins.length === 0) return ok("service: not running (only the web UI needs it)");
  return fix(`service: not running, so the web UI cannot reach this device (${reading.reason})`, "start it with lembas service install");
}

const SHELLS = ["bash", "zsh", "fish"] as const;

function checkShells(env: Env): Finding {
  const found = SHELLS.filter((shell) => Bun.which(shell, { PATH: env.PATH ?? "" }) !== null);
  const missing = SHELLS.filter((shell) => !found.includes(shell));
  if (found.length === 0) return fix("shells: none of bash, zsh, fish is on PATH", "install one of them for terminals with shell integration");
  return ok(`shells for terminal integration: ${found.join(", ")}${missing.length > 0 ? ` (not found: ${missing.join(", ")})` : ""}`);
}

function checkSandbox(env: Env, stateDir: string): Finding {
  const label = "sandbox for the tools' commands";
  const found = findSandbox(env.PATH === undefined ? {} : { PATH: env.PATH });
  if (found.kind === "sandbox-exec") return ok(`${label}: sandbox-exec, which keeps them out of the config and state dirs`);
  if (found.kind !== "none") {
    // Root's commands cannot mount or reach the disks there; whoever wonders why is told here.
    const root = process.getuid?.() === 0 ? ", and runs root's commands without the capabilities that would undo that" : "";
    return ok(`${label}: bwrap (${found.path}), which hides the config and state dirs and the lembas process from them${root}`);
  }
  const text = `${label}: none (${found.why}), so a command the model runs can read the device tokens in ${stateDir}`;
  if (found.broken) return fix(text, "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu, an AppArmor profile for bwrap)");
  if (process.platform === "linux") return fix(text, "install bubblewrap (apt install bubblewrap, dnf install bubblewrap)");
  return fix(text, "keep the state dir's secrets in mind: lembas has no sandbox for this system");
}
