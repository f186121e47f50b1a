/**
 * Whether a login's token reaches the account's library (account-contract.ts says how it is
 * known), found at `lembas login` and kept in the store; a session reads only the store's copy,
 * and starts a check in the background when the copy is missing or a day old, for the next one.
 */
import { answerText, tooLargeWhy } from "../account/answer-body.ts";
import { errorMessage } from "../errors.ts";
import { instanceServer } from "../mcp/from-instance.ts";
import type { Db } from "../store/db.ts";
import { getInstanceLibrary, setInstanceLibrary } from "../store/instance-library.ts";
import type { Login } from "../store/logins.ts";
import { LIBRARY_SCOPE, libraryTool, type LibraryToolCall, tokenScopes } from "./account-contract.ts";
import type { McpConnection } from "../mcp/connection.ts";

/** How long what a check found is kept before a session asks again. */
export const ACCOUNT_LIBRARY_MAX_AGE_MS = 24 * 60 * 60 * 1000;

export type LibraryCheck = { found: { library: boolean; how: "scope" | "tools" } } | { unknown: string };

type CheckLogin = Pick<Login, "name" | "url" | "token">;

/** Asks the instance: the token's scopes from /api/v1/instance, else its /mcp's tools. Never throws. */
export async function checkAccountLibrary(login: CheckLogin, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<LibraryCheck> {
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const signal = opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
  let body: unknown;
  try {
    const response = await fetch(`${login.url}/api/v1/instance`, { headers: { authorization: `Bearer ${login.token}` }, signal });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      return { unknown: `${login.url}/api/v1/instance answered ${response.status}` };
    }
    const answer = await answerText(response);
    if ("tooLarge" in answer) return { unknown: `${login.url}/api/v1/instance: ${tooLargeWhy()}` };
    try {
      body = JSON.parse(answer.text);
    } catch {
      body = null;
    }
  } catch (error) {
    return { unknown: `${login.url} could not be reached: ${errorMessage(error)}` };
  }
  const scopes = tokenScopes(body);
  if (scopes) return { found: { library: scopes.includes(LIBRARY_SCOPE), how: "scope" } };
  const listed = await listInstanceTools(login, timeoutMs, signal);
  if ("unknown" in listed) return listed;
  return { found: { library: listed.tool !== null, how: "tools" } };
}

/** The instance's /mcp, started: its library tool, or null; a /mcp that is not there has none. */
async function listInstanceTools(login: CheckLogin, timeoutMs: number, signal: AbortSignal): Promise<{ tool: LibraryToolCall | null } | { unknown: string }> {
  let connection: McpConnection;
  try {
    connection = await connectInstance(login, { startMs: timeoutMs, callMs: timeoutMs }, signal);
  } catch (error) {
    const message = errorMessage(error);
    if (/answered HTTP (404|405|501)\b/.test(message)) return { tool: null };
    return { unknown: message };
  }
  try {
    return { tool: libraryTool(connection.tools) };
  } finally {
    await connection.stop();
  }
}

/** A started connection to the login's /mcp (the SDK loaded now, not before); throws the sentence it failed with. */
export async function connectInstance(login: CheckLogin, limits: { startMs: number; callMs: number }, signal: AbortSignal, notice: (message: string) => void = () => {}): Promise<McpConnection> {
  const { McpConnection } = await import("../mcp/connection.ts");
  const connection = new McpConnection(instanceServer(login), {
    limits: { ...limits, maxMessageBytes: 32_000_000 },
    env: {},
    cwd: process.cwd(),
    notice,
  });
  try {
    await connection.start(signal);
  } catch (error) {
    await connection.stop();
    throw error;
  }
  return connection;
}

/** Checks each login whose copy is missing or old (all, with `fresh`) and keeps what was found; a check that cannot tell keeps the copy. */
export async function refreshAccountLibrary(db: Db, logins: readonly Login[], opts: { fresh?: boolean; now?: number; signal?: AbortSignal } = {}): Promise<{ login: Login; check: LibraryCheck }[]> {
  const now = opts.now ?? Date.now();
  const stale = logins.filter((login) => {
    const kept = getInstanceLibrary(db, login.url);
    return opts.fresh === true || !kept || now - kept.checkedAt > ACCOUNT_LIBRARY_MAX_AGE_MS;
  });
  return Promise.all(
    stale.map(async (login) => {
      const check = await checkAccountLibrary(login, opts.signal ? { signal: opts.signal } : {});
      try {
        if ("found" in check) setInstanceLibrary(db, login.url, check.found, now);
      } catch {
        // a store closed as lembas ends: the next session checks again
      }
      return { login, check };
    }),
  );
}

/** The logins whose token reaches the account's library, by the store's copies alone, in login order. */
export function libraryLogins(db: Db, logins: readonly Login[]): Login[] {
  return logins.filter((login) => getInstanceLibrary(db, login.url)?.library === true);
}
