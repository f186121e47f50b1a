import type { Env } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { DEFAULT_CONTEXT, type ModelSource, type ResolvedModel } from "./resolved.ts";
import type { DiscoveredModel, KeptListings, ListedServer, StoredListing } from "../store/listings.ts";
import { noModelHint } from "../config/hints.ts";
import { within } from "../pause.ts";
import { waitMs } from "../timing.ts";
import { type DialectId, dialectById, dialectOf } from "./dialects.ts";
import type { Discovery } from "./discovery.ts";
import { modelWindow } from "./window.ts";
import { modelApi } from "./apis.ts";
import { knownWindow } from "./claude-models.ts";
import { UserError } from "../errors.ts";
import { type Endpoint, endpointFromConnection, endpointFromLogin } from "./endpoint.ts";
import { buildNames, instanceRefFor, type Names, providersOf, type RefEntry, resolveRef } from "./refs.ts";
import { MemoryRejectedFields } from "./request-fields.ts";

/**
 * A login as the registry needs it (the store's logins, in login order). providers: those its
 * list named when it was last read, in this process or another (null: never).
 */
export type RegistryLogin = { name: string; url: string; token: string; protocols: number[]; providers: string[] | null };

/** Keeps the providers a login's list named (the store's logins.providers). */
export type RememberProviders = (login: string, providers: string[]) => void;

/** Without kept listings (the store's model_listings: store/listings.ts), every process lists afresh. */
const NOTHING_KEPT: KeptListings = { read: () => null, save: () => {}, fail: () => {} };

/**
 * An endpoint's models (null: never listed, see error), its family, and how fresh they are.
 * `kept`: the models are the store's, not yet listed by this process.
 */
type Listed = {
  endpoint: Endpoint;
  login: boolean;
  models: DiscoveredModel[] | null;
  dialect: DialectId;
  /** Why the last listing failed (the models, if any, are the last good ones). */
  error: string | null;
  listedAt: number | null;
  kept: boolean;
  /** When this process last asked the server (0: never). */
  askedAt: number;
  refreshing: Promise<void> | null;
  vision?: boolean;
  contextLength?: number;
};

/** A connection's listing as `lembas models` and the doctor tell it. */
export type ListingStatus = { name: string; dialect: DialectId; models: number | null; listedAt: number | null; error: string | null };

/** A server that did not answer /models is asked again after this long. */
const RETRY_MS = 30_000;
/** A kept listing older than this is listed again in the background. */
const REFRESH_MS = 10 * 60_000;
/** How long stopping waits for a listing still running before it aborts it. */
const STOP_GRACE_MS = 500;


/**
 * The device's models: its own connections (config.yaml), one connection per login (the
 * instance's /v1), and, with neither, the first local server found on the usual ports (named
 * `local`). Lists are fetched once per registry and shared by every session of the process.
 */
export class ModelRegistry implements ModelSource {
  private listing: Promise<Map<string, Listed>> | null = null;
  private notices: string[] = [];
  /** After setLogins the logins are listed afresh, not from what was kept for their old tokens. */
  private loginsChanged = false;
  /** What servers refused of the fields sent: not sent to them again by any session of this registry. */
  private readonly rejectedFields = new MemoryRejectedFields();

  constructor(
    private readonly config: Config,
    private logins: readonly RegistryLogin[],
    private readonly env: Env = process.env,
    private readonly localPorts?: readonly number[],
    private readonly remember: RememberProviders = () => {},
    private readonly kept: KeptListings = NOTHING_KEPT,
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
    this.lookAtLogins();
    return (await this.names()).entries;
  }

  /**
   * The refs, and the names kept for logins whose lists cannot be had now (see refs.ts). Built
   * again only when what they are built of changed: a session resolves its model several times a
   * turn, and the lists change only when a server is listed again or the logins change.
   */
  private async names(): Promise<Names> {
    const listed = await this.list();
    const inputs: unknown[] = [this.logins, listed];
    for (const entry of listed.values()) inputs.push(entry.models, entry.error);
    const cached = this.built;
    if (cached && cached.inputs.length === inputs.length && cached.inputs.every((input, i) => input === inputs[i])) return cached.names;
    const names = this.buildNames(listed);
    this.built = { inputs, names };
    return names;
  }

  /** The names and what they were built of (compared by identity: a new listing is a new array). */
  private built: { inputs: unknown[]; names: Names } | null = null;

  private buildNames(listed: Map<string, Listed>): Names {
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
    const found = await this.find(ref);
    const { entry, connection } = found;
    const conn = this.config.connections[entry.connection];
    const info = connection.models?.find((m) => m.id === entry.servedId);
    const messagesApi = modelApi(connection.endpoint, entry.servedId) === "messages";
    const window = knownWindow(
      modelWindow(
        info,
        { ...(connection.contextLength !== undefined ? { context: connection.contextLength } : {}), ...(connection.endpoint.body ? { body: connection.endpoint.body } : {}) },
        connection.dialect,
        DEFAULT_CONTEXT,
      ),
      messagesApi ? entry.servedId : null,
    );
    return {
      ref: entry.ref,
      connection: entry.connection,
      endpoint: { ...connection.endpoint, dialect: connection.dialect },
      servedId: entry.servedId,
      contextLength: window.from === "default" ? null : window.tokens,
      window,
      maxOutput: conn?.max_output ?? null,
      supportsTools: conn?.supports_tools ?? info?.tools ?? null,
      reasoning: conn?.reasoning ?? null,
      dialect: connection.dialect,
      // Every Claude model the Messages API serves reads images.
      vision: connection.vision ?? info?.vision ?? messagesApi,
      rejectedFields: this.rejectedFields,
    };
  }

  /** A ref's entry; a ref the kept listings do not know waits for the servers' fresh lists once. */
  private async find(ref: string | null): Promise<{ entry: RefEntry; connection: Listed }> {
    this.lookAtLogins();
    const first = await this.tryFind(ref);
    if (first.ok) return first.value;
    const listed = await this.list();
    const kept = [...listed.values()].filter((l) => l.kept);
    if (kept.length === 0) throw new UserError(this.loggedOutSentence(ref) ?? first.error, 1);
    await Promise.all(kept.map((l) => this.refresh(l)));
    const again = await this.tryFind(ref);
    if (!again.ok) throw new UserError(this.loggedOutSentence(ref) ?? again.error, 1);
    return again.value;
  }

  private async tryFind(ref: string | null): Promise<{ ok: true; value: { entry: RefEntry; connection: Listed } } | { ok: false; error: string }> {
    const listed = await this.list();
    const wanted = ref ?? this.config.model ?? (await this.firstModel());
    if (!wanted) return { ok: false, error: noModelHint() };
    const { entries: refs, withheld, holders } = await this.names();
    const deviceConnections = [...listed.keys()].filter((name) => !this.logins.some((l) => l.name === name));
    const found = resolveRef(wanted, refs, deviceConnections, withheld, holders);
    if (!found.ok) return found;
    const connection = listed.get(found.entry.connection);
    if (!connection) return { ok: false, error: `the connection ${found.entry.connection} is not configured` };
    return { ok: true, value: { entry: found.entry, connection } };
  }

  /** Lists every server afresh now (`lembas models`); one that fails keeps its last good list, and says why. */
  async refreshAll(): Promise<void> {
    this.lookAtLogins();
    const listed = await this.list();
    await Promise.all([...listed.values()].map((l) => (l.askedAt === 0 || l.refreshing ? this.refresh(l) : undefined)));
  }

  /** Each connection's family, and how its list was had. */
  async statuses(): Promise<ListingStatus[]> {
    this.lookAtLogins();
    const listed = await this.list();
    return [...listed.entries()].map(([name, l]) => ({ name, dialect: l.dialect, models: l.models?.length ?? null, listedAt: l.listedAt, error: l.error }));
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
    const refs = this.built?.names.entries ?? [];
    for (const gone of this.logins) {
      if (logins.some((l) => l.name === gone.name)) continue;
      const held = refs.filter((e) => e.login === gone.name).flatMap((e) => [e.ref, ...e.aliases]);
      this.loggedOut.set(gone.name, { url: gone.url, refs: held });
    }
    for (const login of logins) this.loggedOut.delete(login.name);
    this.logins = logins;
    this.listing = null;
    this.loginsChanged = true;
  }

  /**
   * Follows the store's logins (store/logins-watch.ts): a login made or removed in another process
   * is taken, as setLogins would, when a model is next resolved or the refs next read (once a call,
   * a look of microseconds). `now` returns the same array while the logins are unchanged; `seen`
   * is the one it returned last (the logins this registry was made with: not looked at again).
   */
  followLogins(now: () => readonly RegistryLogin[], seen: readonly RegistryLogin[]): void {
    this.follow = now;
    this.followed = seen;
  }

  private follow: (() => readonly RegistryLogin[]) | null = null;
  private followed: readonly RegistryLogin[] | null = null;
  /** The logins removed while this registry ran, with the refs their models had: a turn on one says so. */
  private readonly loggedOut = new Map<string, { url: string; refs: string[] }>();

  private lookAtLogins(): void {
    const now = this.follow?.();
    if (!now || now === this.followed) return;
    this.followed = now;
    this.setLogins(now);
  }

  /** Why `ref` (null: the default model) cannot be had when a login it would be was logged out, or null. */
  private loggedOutSentence(ref: string | null): string | null {
    for (const [name, gone] of this.loggedOut) {
      if (ref === null) return `no model can be had: the login ${name}, whose models were the ones here, was logged out (lembas logout): ${logInAgain(gone.url)}, or set model: in config.yaml`;
      if (gone.refs.includes(ref) || ref.startsWith(`${name}/`)) return modelLoggedOut(ref, name, gone.url);
    }
    return null;
  }

  async current(model: ResolvedModel): Promise<ResolvedModel> {
    this.lookAtLogins();
    const login = this.logins.find((l) => l.name === model.connection);
    if (login) {
      const endpoint = endpointFromLogin(login);
      return endpoint.apiKey === model.endpoint.apiKey && endpoint.baseUrl === model.endpoint.baseUrl ? model : await this.resolve(model.ref);
    }
    const gone = this.loggedOut.get(model.connection);
    if (gone) throw new UserError(modelLoggedOut(model.ref, model.connection, gone.url), 1);
    return model;
  }

  /**
   * The listings: the kept ones at once (refreshed in the background when old), the others
   * listed now. A server never listed that did not answer is asked again after RETRY_MS.
   */
  private async list(): Promise<Map<string, Listed>> {
    this.listing ??= this.start();
    const listed = await this.listing;
    const now = Date.now();
    const waits: Promise<void>[] = [];
    for (const entry of listed.values()) {
      // A list never had yet is waited for, even when its first listing is already under way.
      if (entry.models === null && entry.refreshing) waits.push(entry.refreshing);
      if (entry.refreshing || now - entry.askedAt < RETRY_MS) continue;
      if (entry.models === null) waits.push(this.refresh(entry));
      else if (entry.listedAt === null || now - entry.listedAt > REFRESH_MS) void this.refresh(entry);
    }
    await Promise.all(waits);
    return listed;
  }

  /**
   * Gives the listings still running a moment to end (and be kept), then aborts them: a
   * background refresh must not hold a finished `lembas run` up for a slow server's seconds.
   */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    const listed = this.listing ? await this.listing.catch(() => null) : null;
    const running = [...(listed?.values() ?? [])].map((l) => l.refreshing).filter((p): p is Promise<void> => p !== null);
    if (running.length > 0) await within(Promise.all(running), graceMs);
    this.stopping.abort();
  }

  private readonly stopping = new AbortController();

  /** Lists one server (once at a time), keeping what it told, or the failure beside the last good list. */
  private refresh(entry: Listed): Promise<void> {
    entry.refreshing ??= (async () => {
      entry.askedAt = Date.now();
      // Loaded with the first listing asked for: a one-shot whose listing is kept never lists.
      const { discover } = await import("./discovery.ts");
      const found = await discover(entry.endpoint, { timeoutMs: waitMs("LISTING_MS", 5000), login: entry.login, signal: this.stopping.signal });
      const name = entry.endpoint.name;
      // Stopped (the process ends): what was known stays as it was, no failure is kept.
      if (this.stopping.signal.aborted) return;
      if (found.ok) {
        Object.assign(entry, { models: found.value.models, dialect: found.value.dialect, error: null, listedAt: Date.now(), kept: false });
        this.keep(() => this.kept.save(name, listedServer(entry.endpoint), found.value));
        this.keepProviders(new Map([[name, entry]]));
      } else {
        Object.assign(entry, { error: found.error.message, kept: false });
        if (entry.models !== null) this.keep(() => this.kept.fail(name, listedServer(entry.endpoint), found.error.message));
      }
    })().finally(() => {
      entry.refreshing = null;
    });
    return entry.refreshing;
  }

  /** A store that will not take a write costs the next process a listing, nothing more. */
  private keep(write: () => void): void {
    try {
      write();
    } catch {
      // kept in memory all the same
    }
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

  private async start(): Promise<Map<string, Listed>> {
    const entries: Listed[] = [];
    const blank = { models: null, dialect: "generic" as DialectId, error: null, listedAt: null, kept: false, askedAt: 0, refreshing: null };
    for (const [name, conn] of Object.entries(this.config.connections)) {
      entries.push({
        ...blank,
        endpoint: endpointFromConnection(name, conn, this.env),
        login: false,
        ...(conn.vision !== undefined ? { vision: conn.vision } : {}),
        ...((conn.context ?? conn.context_length) !== undefined ? { contextLength: conn.context ?? conn.context_length } : {}),
      });
    }
    for (const login of this.logins) entries.push({ ...blank, endpoint: endpointFromLogin(login), login: true, dialect: "lembas" });
    if (entries.length === 0) {
      const local = await (await import("./models.ts")).probeLocal(this.localPorts);
      if (local) {
        this.notices.push(`no connection is configured: using the model server at ${local.baseUrl} as "local"`);
        const endpoint: Endpoint = { name: "local", baseUrl: local.baseUrl, apiKey: null };
        const models = local.models.chat.map((m) => ({ ...m }));
        const dialect = dialectOf({ baseUrl: local.baseUrl, listing: { data: models } }).id;
        return new Map([["local", { ...blank, endpoint, login: false, models, dialect, listedAt: Date.now(), askedAt: Date.now() }]]);
      }
    }
    for (const entry of entries) {
      if (entry.login && this.loginsChanged) continue;
      const kept = this.readKept(entry.endpoint);
      if (kept) Object.assign(entry, { models: kept.models, dialect: kept.dialect, listedAt: kept.listedAt, kept: true, error: kept.failure?.why ?? null });
    }
    this.keepProviders(new Map(entries.filter((e) => e.models !== null).map((e) => [e.endpoint.name, e])));
    return new Map(entries.map((e) => [e.endpoint.name, e]));
  }

  /** The kept listing of an endpoint, its family read by id (one this lembas does not know is generic). */
  private readKept(endpoint: Endpoint): (StoredListing & Discovery) | null {
    try {
      const kept = this.kept.read(endpoint.name, listedServer(endpoint));
      return kept && { ...kept, dialect: dialectById(kept.dialect).id };
    } catch {
      return null;
    }
  }
}

function logInAgain(url: string): string {
  return `log in again (lembas login ${url})`;
}

function modelLoggedOut(ref: string, login: string, url: string): string {
  return `the model ${ref} was the login ${login}'s, which was logged out (lembas logout): ${logInAgain(url)}, or choose another model`;
}

/** The server and key a listing is kept for (store/listings.ts). */
function listedServer(endpoint: Endpoint): ListedServer {
  return { baseUrl: endpoint.baseUrl, key: endpoint.apiKey };
}
