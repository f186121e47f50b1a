import type { Db } from "./db.ts";
import { forgetDeletes, renameDeletes } from "./deletes.ts";
import { readJson } from "./json-column.ts";
import { forgetMarks, renameMarks } from "./marks.ts";

/**
 * A login to a LLeMbas instance. The token is a secret: never print or log it. providers: those
 * its /v1/models listed the last time it was read (null: never), which keep their short refs.
 */
export type Login = {
  name: string;
  url: string;
  token: string;
  protocols: number[];
  providers: string[] | null;
  position: number;
  createdAt: number;
};

type RawLogin = { name: string; url: string; token: string; protocols: string; providers: string | null; position: number; created_at: number };

const COLUMNS = "name, url, token, protocols, providers, position, created_at";

function toLogin(raw: RawLogin): Login {
  return {
    name: raw.name,
    url: raw.url,
    token: raw.token,
    // Kept lists that no longer read as lists are taken as never learnt: the next link or model list learns them again.
    protocols: listOf(readJson(raw.protocols), (p): p is number => typeof p === "number") ?? [],
    providers: raw.providers === null ? null : listOf(readJson(raw.providers), (p): p is string => typeof p === "string"),
    position: raw.position,
    createdAt: raw.created_at,
  };
}

/** `value` as a list of T, or null when it is not one. */
function listOf<T>(value: unknown, is: (item: unknown) => item is T): T[] | null {
  return Array.isArray(value) && value.every(is) ? value : null;
}

/** Logins in the order they were made (the naming rules give the first one the short names). */
export function listLogins(db: Db): Login[] {
  return db
    .query<RawLogin, []>(`SELECT ${COLUMNS} FROM logins ORDER BY position`)
    .all()
    .map(toLogin);
}

export function getLogin(db: Db, name: string): Login | null {
  const raw = db
    .query<RawLogin, [string]>(`SELECT ${COLUMNS} FROM logins WHERE name = ?`)
    .get(name);
  return raw ? toLogin(raw) : null;
}

/**
 * Adds a login or, for a known URL, refreshes its token and protocols while keeping its place in the
 * order. What the device keeps for a login's clients (the sessions given to them, the deletes to
 * tell them) goes with the account, not the name: a new login, or a new token for a known URL —
 * another account, as far as the device can tell — starts with none; a rename keeps them.
 */
export function saveLogin(db: Db, login: { name: string; url: string; token: string; protocols: number[] }): Login {
  const run = db.transaction(() => {
    const existing = db.query<{ name: string; token: string }, [string]>("SELECT name, token FROM logins WHERE url = ?").get(login.url);
    const sameAccount = existing?.token === login.token;
    // A name no login has may still hold what a logout left before logouts forgot it.
    if (existing?.name !== login.name || !sameAccount) forgetClients(db, login.name);
    if (existing && existing.name !== login.name) {
      if (sameAccount) {
        renameMarks(db, existing.name, login.name);
        renameDeletes(db, existing.name, login.name);
      } else {
        forgetClients(db, existing.name);
      }
    }
    if (existing) {
      db.query("UPDATE logins SET name = ?, token = ?, protocols = ? WHERE url = ?").run(
        login.name,
        login.token,
        JSON.stringify(login.protocols),
        login.url,
      );
    } else {
      const last = db.query<{ p: number | null }, []>("SELECT max(position) AS p FROM logins").get();
      db.query("INSERT INTO logins (name, url, token, protocols, position, created_at) VALUES (?, ?, ?, ?, ?, ?)").run(
        login.name,
        login.url,
        login.token,
        JSON.stringify(login.protocols),
        (last?.p ?? 0) + 1,
        Date.now(),
      );
    }
    const saved = getLogin(db, login.name);
    if (!saved) throw new Error(`login ${login.name} was not stored`);
    return saved;
  });
  return run.immediate();
}

export function setLoginProtocols(db: Db, name: string, protocols: number[]): void {
  db.query("UPDATE logins SET protocols = ? WHERE name = ?").run(JSON.stringify(protocols), name);
}

/** Remembers the providers a login's model list named (see {@link Login}). */
export function setLoginProviders(db: Db, name: string, providers: readonly string[]): void {
  db.query("UPDATE logins SET providers = ? WHERE name = ?").run(JSON.stringify(providers), name);
}

/** Forgets a login with what was kept for its clients (store/marks.ts, store/deletes.ts), in one transaction. */
export function deleteLogin(db: Db, name: string): boolean {
  const run = db.transaction(() => {
    const deleted = db.query("DELETE FROM logins WHERE name = ?").run(name).changes > 0;
    if (deleted) forgetClients(db, name);
    return deleted;
  });
  return run.immediate();
}

/** What the device kept for a login name's clients: the sessions they were given, the deletes to tell them. */
function forgetClients(db: Db, name: string): void {
  forgetMarks(db, name);
  forgetDeletes(db, name);
}
