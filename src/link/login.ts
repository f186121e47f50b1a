import type { Paths } from "../config/paths.ts";
import { setConfigKey } from "../config/save.ts";
import type { Config } from "../config/schema.ts";
import { UserError } from "../errors.ts";
import { endpointFromLogin } from "../model/endpoint.ts";
import { isAbort, networkReason } from "../model/errors.ts";
import { listModels } from "../model/models.ts";
import { probeInstanceMcp } from "../mcp/from-instance.ts";
import type { Db } from "../store/db.ts";
import { setInstanceMcp } from "../store/instance-mcp.ts";
import { type Login, listLogins, saveLogin } from "../store/logins.ts";
import { discover, normalizeUrl } from "./discovery.ts";
import { refreshAccountLibrary } from "../library/account-check.ts";

/** `replaced` is the login this one took the place of (the same instance URL), as it was. */
export type LoginResult = { login: Login; chatModels: string[]; embedding: string | null; notes: string[]; replaced: Login | null };

/**
 * Logs in to an instance: discovery (protocol 1 or 2), the token checked against /api/v1/instance,
 * the login kept in the store (a known URL keeps its name and place), and the instance's models
 * read: its first embedding model becomes config.yaml's `embedding:` when none is set. Whether the
 * token has the account's library (account-check.ts) and whether the instance serves /mcp are
 * asked too, and kept in the store for the sessions.
 */
export async function login(input: {
  url: string;
  token: string;
  name?: string;
  /** Lets an http:// URL to a host other than this device's loopback through (`--insecure`). */
  insecure?: boolean;
  db: Db;
  config: Config;
  paths: Paths;
}): Promise<LoginResult> {
  const url = encryptedUrl(input.url, input.insecure ?? false);
  const token = input.token.trim();
  if (!token) throw new UserError("the token is empty", 2);
  const discovered = await discover(url);
  await checkToken(url, token);
  const existing = listLogins(input.db).find((l) => l.url === url);
  const name = input.name ?? existing?.name ?? connectionName(url, input.db, input.config);
  checkName(name, url, input.db, input.config);
  const saved = saveLogin(input.db, { name, url, token, protocols: discovered.protocols });
  const replaced = existing ?? null;

  const notes: string[] = [];
  // Whether the instance serves /mcp and whether the token has the library are asked now, beside its models, so that no session waits on them.
  const [models, mcp, [library]] = await Promise.all([
    listModels(endpointFromLogin(saved), { timeoutMs: 10_000 }),
    probeInstanceMcp(url, token),
    refreshAccountLibrary(input.db, [saved], { fresh: true }),
  ]);
  if (library && "found" in library.check && library.check.found.library) notes.push(libraryNote(input.config));
  if (mcp.found !== "unknown") setInstanceMcp(input.db, url, mcp.found === "serves");
  if (mcp.found === "serves") notes.push("the instance serves MCP tools at /mcp: sessions are offered them (lembas mcp list shows them)");
  if (!models.ok) {
    notes.push(`could not list the instance's models: ${models.error.message}`);
    return { login: saved, chatModels: [], embedding: null, notes, replaced };
  }
  const chatModels = models.value.chat.map((m) => m.id);
  let embedding: string | null = null;
  const first = models.value.embedding[0];
  if (first && !input.config.embedding) {
    embedding = `${name}/${first.id}`;
    setConfigKey(input.paths.configFile, "embedding", embedding);
    notes.push(`embedding: ${embedding} (set in config.yaml)`);
  }
  return { login: saved, chatModels, embedding, notes, replaced };
}

function libraryNote(config: Config): string {
  if (config.library === "local") return "the token has the account's library; config.yaml's library: local keeps the device's";
  return "the token has the account's library: the agent searches it when this is the one login that has it (lembas doctor says)";
}

/** What a login did, a line each, as `lembas login` and the terminal's /login say it. */
export function loginLines(result: LoginResult): string[] {
  const { login: saved } = result;
  return [
    `logged in to ${saved.url} as "${saved.name}" (link protocol ${saved.protocols.includes(2) ? 2 : 1})`,
    ...(result.chatModels.length > 0 ? [`models: ${result.chatModels.length} (lembas models lists them)`] : []),
    ...result.notes,
  ];
}

/** The line saying which login a login took the place of, or null when it replaced none. */
export function replacedLine(result: LoginResult): string | null {
  const old = result.replaced;
  if (!old) return null;
  const renamed = old.name === result.login.name ? "" : ` (now named ${result.login.name})`;
  return `replaced the login ${old.name} for ${old.url}${renamed}: its token is forgotten`;
}

/**
 * The instance URL, normalized; refused when it is http:// to another host than loopback (the
 * device token would cross the network in the clear), unless the person says `--insecure`.
 */
export function encryptedUrl(input: string, insecure: boolean): string {
  const url = normalizeUrl(input);
  const { protocol, hostname } = new URL(url);
  if (protocol === "https:" || insecure || isLoopback(hostname)) return url;
  throw new UserError(`${url} would send the device token unencrypted: use https://, or add --insecure if you trust every network between here and ${hostname}`, 2);
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

async function checkToken(url: string, token: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`${url}/api/v1/instance`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw new UserError(`could not reach ${url}: ${isAbort(error) ? "it did not answer in time" : networkReason(error)}`, 1);
  }
  if (response.status === 401 || response.status === 403) {
    throw new UserError(`${url} did not accept the token: make a new device token in the web UI and log in again`, 1);
  }
  if (!response.ok) throw new UserError(`${url} answered ${response.status} when the token was checked`, 1);
}

/** A connection name from the host: app.example.org → example; localhost:8000 → localhost. */
export function connectionName(url: string, db: Db, config: Config): string {
  const host = new URL(url).hostname;
  const labels = host.split(".").filter(Boolean);
  const ip = /^[\d.]+$/.test(host) || host.includes(":");
  let base = ip ? "lembas" : labels.length >= 2 ? (labels.at(-2) ?? host) : (labels[0] ?? "lembas");
  base = base.replace(/[^A-Za-z0-9._-]/g, "-").replace(/^[^A-Za-z0-9]+/, "") || "lembas";
  const taken = new Set([...Object.keys(config.connections), ...listLogins(db).map((l) => l.name)]);
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

function checkName(name: string, url: string, db: Db, config: Config): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new UserError(`--name ${name}: a name is letters, digits, . _ -`, 2);
  if (config.connections[name]) throw new UserError(`--name ${name}: config.yaml has a connection of that name already`, 2);
  const other = listLogins(db).find((l) => l.name === name && l.url !== url);
  if (other) throw new UserError(`--name ${name}: the login to ${other.url} has that name already`, 2);
}
