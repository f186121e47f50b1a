/**
 * Model refs: the names a person and config.yaml use for models, following the spec's
 * "How the device names an instance's models" (spec/acp.md).
 */

import { editDistance } from "../suggest.ts";

/** A model as an instance's /v1/models serves it. */
export type InstanceModel = { id: string; provider?: string };

/**
 * A login with its chat models; logins are given in login order (first logged in first).
 * `unlisted`: its list could not be had now — why, and the providers it served when it was
 * last listed (null: never listed), which keep their short form all the same.
 */
export type LoginModels = {
  name: string;
  protocols: readonly number[];
  models: readonly InstanceModel[];
  unlisted?: { why: string; providers: readonly string[] | null };
};

/** A connection of config.yaml with the models it listed, if it was asked. */
export type ConnectionModels = { name: string; models?: readonly { id: string }[] };

export type RefEntry = {
  /** The name the device shows and stores for the model. */
  ref: string;
  /** The device connection or login whose endpoint requests go to. */
  connection: string;
  /** The id sent to that endpoint as `model`. */
  servedId: string;
  /** The login serving the model; null for a device connection's. */
  login: string | null;
  /** Older names that still name the model (<login>/<model>, <login>/<provider>/<model>). */
  aliases: string[];
};

/**
 * Names that belong to a login whose models cannot be listed now: `<provider>/…` of a provider
 * it holds the short form of, and its own `<login>/…`. `known` is false where the login was
 * never listed, so whether it holds the provider cannot be told.
 */
export type Withheld = { prefix: string; login: string; why: string; known: boolean };

type Input = { connections: readonly ConnectionModels[]; logins: readonly LoginModels[] };

/** Every model's entry; see {@link buildNames}. */
export function buildRefs(input: Input): RefEntry[] {
  return buildNames(input).entries;
}

/**
 * Names every model of the device's connections and logins.
 *
 * - A device connection's model is `<connection>/<model>`.
 * - An instance's model with a provider is `<provider>/<model>` (for a protocol 2 instance,
 *   its served id). The provider is the model's provider field, else, only from an instance
 *   whose protocols include 2, the id before its first `/`.
 * - The short form goes to `<login>/<provider>/<model>` when a device connection has the
 *   provider's name, or an instance logged in to earlier serves that provider. (Also when
 *   another login has the provider's name: its `<login>/<id>` refs would otherwise clash.)
 * - Login order alone decides who holds a provider: a login whose list cannot be had now holds
 *   the providers it served last, and one never listed holds every provider no earlier login
 *   does — their short forms are then withheld, never given to a later login.
 * - A model without a provider stays `<login>/<id>`, a `/` in the id notwithstanding.
 */
export function buildNames(input: Input): Names {
  const entries: RefEntry[] = [];
  const taken = new Set<string>();
  const add = (entry: RefEntry): void => {
    if (taken.has(entry.ref)) return;
    taken.add(entry.ref);
    entries.push(entry);
  };

  for (const conn of input.connections) {
    for (const model of conn.models ?? []) {
      add({ ref: `${conn.name}/${model.id}`, connection: conn.name, servedId: model.id, login: null, aliases: [] });
    }
  }

  const holders = holdersOf(input);
  for (const login of input.logins) {
    if (login.unlisted) continue;
    const speaks2 = login.protocols.includes(2);
    for (const model of login.models) {
      const named = providerOf(model, speaks2);
      if (named === null) {
        add({ ref: `${login.name}/${model.id}`, connection: login.name, servedId: model.id, login: login.name, aliases: [] });
        continue;
      }
      const short = `${named.provider}/${named.model}`;
      const long = `${login.name}/${short}`;
      const ref = holders.get(named.provider) === login.name && !taken.has(short) ? short : long;
      const aliases = unique([long, `${login.name}/${named.model}`, `${login.name}/${model.id}`]).filter((a) => a !== ref);
      add({ ref, connection: login.name, servedId: model.id, login: login.name, aliases });
    }
  }
  return { entries, withheld: withheldOf(input.logins, holders), holders };
}

/** provider → the login whose models of it keep the short form, by login order alone. */
function holdersOf(input: Input): Map<string, string> {
  const deviceNames = new Set(input.connections.map((c) => c.name));
  const loginNames = new Set(input.logins.map((l) => l.name));
  const mayHold = (provider: string, login: string): boolean =>
    !deviceNames.has(provider) && (provider === login || !loginNames.has(provider));
  const holders = new Map<string, string>();
  /** The first login never listed: it may hold any provider no earlier login holds. */
  let unknown: string | null = null;
  for (const login of input.logins) {
    const providers = login.unlisted ? login.unlisted.providers : providersOf(login.models, login.protocols);
    if (providers === null) {
      unknown ??= login.name;
      continue;
    }
    for (const provider of providers) {
      if (holders.has(provider)) continue;
      if (unknown !== null && mayHold(provider, unknown)) holders.set(provider, unknown);
      else if (mayHold(provider, login.name)) holders.set(provider, login.name);
    }
  }
  return holders;
}

function withheldOf(logins: readonly LoginModels[], holders: ReadonlyMap<string, string>): Withheld[] {
  const withheld: Withheld[] = [];
  for (const login of logins) {
    if (!login.unlisted) continue;
    const { why, providers } = login.unlisted;
    for (const [provider, holder] of holders) {
      if (holder === login.name) withheld.push({ prefix: `${provider}/`, login: login.name, why, known: providers !== null });
    }
    withheld.push({ prefix: `${login.name}/`, login: login.name, why, known: true });
  }
  return withheld;
}

/** The providers a login's models name (what the store remembers of its list). */
export function providersOf(models: readonly InstanceModel[], protocols: readonly number[]): string[] {
  const speaks2 = protocols.includes(2);
  return unique(models.flatMap((model) => providerOf(model, speaks2)?.provider ?? []));
}

/** The provider and the model's own name, or null for a model that has no provider. */
function providerOf(model: InstanceModel, speaks2: boolean): { provider: string; model: string } | null {
  if (model.provider) {
    const prefix = `${model.provider}/`;
    return { provider: model.provider, model: model.id.startsWith(prefix) ? model.id.slice(prefix.length) : model.id };
  }
  if (!speaks2) return null;
  const slash = model.id.indexOf("/");
  if (slash <= 0 || slash === model.id.length - 1) return null;
  return { provider: model.id.slice(0, slash), model: model.id.slice(slash + 1) };
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}

export type Resolved = { ok: true; entry: RefEntry } | { ok: false; error: string };

/** The refs, the names kept for logins whose lists cannot be had, and who holds each provider's short forms. */
export type Names = { entries: RefEntry[]; withheld: Withheld[]; holders: ReadonlyMap<string, string> };

/**
 * Finds the model `input` names: a ref, else an old form (alias), else any model of a device
 * connection named `<connection>/<model>` (listed or not: the server has the last word), else
 * a served id only one endpoint serves. Otherwise an error sentence naming close refs. A name
 * that belongs to a login whose list cannot be had (`withheld`) is an error saying so, never
 * another login's model.
 */
export function resolveRef(
  input: string,
  refs: readonly RefEntry[],
  deviceConnections: readonly string[] = [],
  withheld: readonly Withheld[] = [],
  holders: ReadonlyMap<string, string> = new Map(),
): Resolved {
  const name = input.trim();
  const exact = refs.find((e) => e.ref === name);
  if (exact) return { ok: true, entry: exact };

  const away = withheld.find((w) => name.startsWith(w.prefix) && name.length > w.prefix.length);
  if (away) return { ok: false, error: withheldSentence(name, away, refs) };

  const byAlias = refs.filter((e) => e.aliases.includes(name));
  if (byAlias.length === 1 && byAlias[0]) return { ok: true, entry: byAlias[0] };
  if (byAlias.length > 1) return { ok: false, error: `"${name}" could be ${orList(byAlias.map((e) => e.ref))}: say which` };

  const slash = name.indexOf("/");
  const connection = name.slice(0, slash);
  if (slash > 0 && slash < name.length - 1 && deviceConnections.includes(connection)) {
    return { ok: true, entry: { ref: name, connection, servedId: name.slice(slash + 1), login: null, aliases: [] } };
  }

  // A served id in a provider's short form belongs to the login holding that provider alone: it
  // never finds another login's model (another account) by its id.
  const holder = slash > 0 ? holders.get(connection) : undefined;
  const served = refs.filter((e) => e.servedId === name && (holder === undefined || e.login === holder));
  if (holder !== undefined && served.length === 0) {
    const elsewhere = refs.filter((e) => e.servedId === name && e.login !== holder);
    if (elsewhere.length > 0) {
      return {
        ok: false,
        error: `${holder} serves the ${connection} models here and has no ${name}; ${orList(elsewhere.map((e) => e.ref))} is another instance's: name it so to use it`,
      };
    }
  }
  if (served.length === 1 && served[0]) return { ok: true, entry: served[0] };
  if (served.length > 1) return { ok: false, error: `"${name}" could be ${orList(served.map((e) => e.ref))}: say which` };

  return { ok: false, error: unknownSentence(name, refs) };
}

/**
 * The device's ref for a model an instance names by its served name (session/new's
 * lembas_model, _lembas/configure's model). An unlisted name becomes `<login>/<name>`, as
 * protocol 1 had it; resolving that then says whether it exists.
 */
export function instanceRefFor(login: string, servedName: string, refs: readonly RefEntry[]): string {
  return refs.find((e) => e.login === login && e.servedId === servedName)?.ref ?? `${login}/${servedName}`;
}

function withheldSentence(name: string, away: Withheld, refs: readonly RefEntry[]): string {
  const others = refs.filter((e) => e.login !== null && e.ref === `${e.login}/${name}`).map((e) => e.ref);
  const instead = others.length > 0 ? ` (${orList(others)} names another instance's)` : "";
  if (away.known) return `the instance ${away.login} that serves ${name} could not be reached: ${away.why}${instead}`;
  return `which instance serves ${name} is not known: ${away.login}, logged in to earlier, has not listed its models yet and could not be reached: ${away.why}${instead}`;
}

function unknownSentence(name: string, refs: readonly RefEntry[]): string {
  if (refs.length === 0) return `there is no model "${name}": no connection or login lists any models (add a connection to config.yaml, or log in to an instance)`;
  const close = closeRefs(name, refs, 3);
  if (close.length > 0) return `there is no model "${name}"; did you mean ${orList(close)}?`;
  const some = refs.slice(0, 5).map((e) => e.ref);
  return `there is no model "${name}"; models include ${orList(some, "and")}${refs.length > some.length ? ", …" : ""}`;
}

/** Refs near `name`: containing it (or contained in it), or a few edits away. */
function closeRefs(name: string, refs: readonly RefEntry[], max: number): string[] {
  const wanted = name.toLowerCase();
  const scored: { ref: string; score: number }[] = [];
  for (const entry of refs) {
    const ref = entry.ref.toLowerCase();
    const distance = editDistance(wanted, ref);
    const contains = ref.includes(wanted) || wanted.includes(ref) || ref.endsWith(`/${wanted.split("/").pop()}`);
    if (!contains && distance > Math.max(2, Math.floor(wanted.length / 3))) continue;
    scored.push({ ref: entry.ref, score: contains ? distance - 1000 : distance });
  }
  return scored
    .sort((a, b) => a.score - b.score)
    .slice(0, max)
    .map((s) => s.ref);
}


function orList(items: string[], word = "or"): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} ${word} ${items[items.length - 1]}`;
}
