import type { Env } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import type { ModelSource, ResolvedModel } from "../engine/models.ts";
import { UserError } from "../errors.ts";
import { type Endpoint, endpointFromConnection, endpointFromLogin } from "./endpoint.ts";
import { listModels, type ModelInfo, probeLocal } from "./models.ts";
import { buildNames, instanceRefFor, type Names, providersOf, type RefEntry, resolveRef } from "./refs.ts";

/**
 * A login as the registry needs it (the store's logins, in login order). providers: those its
 * list named when it was last read, in this process or another (null: never).
 */
export type RegistryLogin = { name: string; url: string; token: string; protocols: number[]; providers: string[] | null };

/** Keeps the providers a login's list named (the store's logins.providers). */
export type RememberProviders = (login: string, providers: string[]) => void;

/** An endpoint's models, or null with why they could not be listed. */
type Listed = { endpoint: Endpoint; models: ModelInfo[] | null; error: string | null; vision?: boolean; contextLength?: number };

/** A server that did not answer /models is asked again after this long. */
const RETRY_MS = 30_000;

const NO_MODEL =
  "no model to talk to: add a connection to config.yaml (connections: {local: {base_url: http://127.0.0.1:11434/v1}}) and set model: local/<name>, or log in to a LLeMbas instance with lembas login URL";

/**
 * The device's models: its own connections (config.yaml), one connection per login (the
 * instance's /v1), and, with neither, the first local server found on the usual ports (named
 * `local`). Lists are fetched once per registry and shared by every session of the process.
 */
export class ModelRegistry implements ModelSource {
  private listing: Promise<Map<string, Listed>> | null = null;
  /** When a listing had a server that did not answer: it is asked again after RETRY_MS. */
  private failedAt: number | null = null;
  private notices: string[] = [];

  constructor(
    private readonly config: Config,
    private logins: readonly RegistryLogin[],
    private readonly env: Env = process.env,
    private readonly localPorts?: readonly number[],
    private readonly remember: RememberProviders = () => {},
  ) {}

  /** What the registry found worth saying (the local server it fell back to). */
  takeNotices(): string[] {
    return this.notices.splice(0);
  }

  async refs(): Promise<string[]> {
    return (await this.entries()).map((e) => e.ref);
  }

  async refFor(login: string, servedName: string): Promise<string> {
    return instanceRefFor(login, servedName, await this.entries());
  }

  async entries(): Promise<RefEntry[]> {
    return (await this.names()).entries;
  }

  /** The refs, and the names kept for logins whose lists cannot be had now (see refs.ts). */
  private async names(): Promise<Names> {
    const listed = await this.list();
    return buildNames({
      connections: Object.keys(this.config.connections)
        .concat(listed.has("local") && !this.config.connections.local ? ["local"] : [])
        .map((name) => ({ name, models: listed.get(name)?.models ?? [] })),
      logins: this.logins.map((login) => {
        const found = listed.get(login.name);
        const base = { name: login.name, protocols: login.protocols };
        if (found?.models) return { ...base, models: found.models };
        const why = found?.error ?? "its models were not listed";
        return { ...base, models: [], unlisted: { why, providers: login.providers } };
      }),
    });
  }

  async resolve(ref: string | null): Promise<ResolvedModel> {
    const listed = await this.list();
    const wanted = ref ?? this.config.model ?? (await this.firstModel());
    if (!wanted) throw new UserError(NO_MODEL, 1);
    const { entries: refs, withheld, holders } = await this.names();
    const deviceConnections = [...listed.keys()].filter((name) => !this.logins.some((l) => l.name === name));
    const found = resolveRef(wanted, refs, deviceConnections, withheld, holders);
    if (!found.ok) throw new UserError(found.error, 1);
    const connection = listed.get(found.entry.connection);
    if (!connection) throw new UserError(`the connection ${found.entry.connection} is not configured`, 1);
    const info = connection.models?.find((m) => m.id === found.entry.servedId);
    return {
      ref: found.entry.ref,
      connection: found.entry.connection,
      endpoint: connection.endpoint,
      servedId: found.entry.servedId,
      contextLength: info?.contextLength ?? connection.contextLength ?? null,
      vision: connection.vision ?? info?.vision ?? false,
      ...(this.config.connections[found.entry.connection]?.supports_tools === false ? { supportsTools: false } : {}),
    };
  }

  /** With no model set: the only connection's first model, so a fresh setup just works. */
  private async firstModel(): Promise<string | null> {
    const { entries, withheld } = await this.names();
    const first = entries[0];
    if (first && first.login === null) return first.ref;
    // The first login's first model is the default: while that login is away, no later one's stands in.
    const before = first ? this.logins.findIndex((l) => l.name === first.login) : this.logins.length;
    for (const login of this.logins.slice(0, before)) {
      const away = withheld.find((w) => w.prefix === `${login.name}/`);
      if (away) {
        throw new UserError(
          `no model is set, and the instance ${away.login}, whose first model would be the one, could not be reached: ${away.why} (set model: in config.yaml to use another)`,
          1,
        );
      }
    }
    return first?.ref ?? null;
  }

  /** The logins changed (a login made, removed, or its token renewed): list their models afresh. */
  setLogins(logins: readonly RegistryLogin[]): void {
    this.logins = logins;
    this.listing = null;
  }

  private list(): Promise<Map<string, Listed>> {
    if (this.listing && this.failedAt !== null && Date.now() - this.failedAt > RETRY_MS) this.listing = null;
    this.listing ??= this.fetchAll().then((listed) => {
      this.failedAt = [...listed.values()].some((l) => l.models === null) ? Date.now() : null;
      this.keepProviders(listed);
      return listed;
    });
    return this.listing;
  }

  /** Remembers, for each login listed, the providers it serves: they keep their short form while it is away. */
  private keepProviders(listed: ReadonlyMap<string, Listed>): void {
    this.logins = this.logins.map((login) => {
      const models = listed.get(login.name)?.models;
      if (!models) return login;
      const providers = providersOf(models, login.protocols);
      if (login.providers?.join("\n") === providers.join("\n")) return login;
      this.remember(login.name, providers);
      return { ...login, providers };
    });
  }

  private async fetchAll(): Promise<Map<string, Listed>> {
    const endpoints: Listed[] = [];
    for (const [name, conn] of Object.entries(this.config.connections)) {
      endpoints.push({
        endpoint: endpointFromConnection(name, conn, this.env),
        models: null,
        error: null,
        ...(conn.vision !== undefined ? { vision: conn.vision } : {}),
        ...((conn.context ?? conn.context_length) !== undefined ? { contextLength: conn.context ?? conn.context_length } : {}),
      });
    }
    for (const login of this.logins) endpoints.push({ endpoint: endpointFromLogin(login), models: null, error: null });
    if (endpoints.length === 0) {
      const local = await probeLocal(this.localPorts);
      if (local) {
        this.notices.push(`no connection is configured: using the model server at ${local.baseUrl} as "local"`);
        const endpoint: Endpoint = { name: "local", baseUrl: local.baseUrl, apiKey: null };
        return new Map([["local", { endpoint, models: local.models.chat, error: null }]]);
      }
    }
    const results = await Promise.all(
      endpoints.map(async (entry) => {
        const listed = await listModels(entry.endpoint, { timeoutMs: 5000 });
        return listed.ok ? { ...entry, models: listed.value.chat } : { ...entry, error: listed.error.message };
      }),
    );
    return new Map(results.map((r) => [r.endpoint.name, r]));
  }
}
