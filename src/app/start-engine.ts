import type { Env } from "../config/paths.ts";
import type { Context } from "./context.ts";
import { ModelRegistry, type RegistryLogin } from "../model/registry.ts";
import type { Db } from "../store/db.ts";
import { keptListings } from "../store/listings.ts";
import { listLogins, setLoginProviders } from "../store/logins.ts";
import { LoginsWatch } from "../store/logins-watch.ts";
import { ALL_TOOLS } from "../tools/index.ts";
import { Engine } from "../engine/engine.ts";
import { localPorts } from "../model/local-ports.ts";
import { personalEntry } from "../account/personal-entry.ts";
import { libraryBackend } from "../library/engine-library.ts";
import { LazyCodeIndexes } from "../code-index/engine-code-index.ts";
import { liveProtectedPaths } from "../engine/config-derived.ts";
import { refreshAccountLibrary } from "../library/account-check.ts";
import { mcpWiring } from "../mcp/wiring.ts";
import { followConfig } from "./config-news.ts";

/** The engine as every front end starts it: the config, the store, the device's models and every tool. */
export function createEngine(
  ctx: Context,
  holder = "terminal",
  onFileUse?: (root: string, path: string) => void,
  commandEnv?: Env,
): { engine: Engine; models: ModelRegistry; logins: LoginsWatch; dropReads: () => void } {
  const config = ctx.config();
  const db = ctx.db();
  // Followed by the registry: a login or logout in another shell is seen before the next model is resolved.
  const logins = new LoginsWatch(db);
  const remember = (login: string, providers: string[]) => {
    try {
      setLoginProviders(db, login, providers);
    } catch {
      // kept in memory all the same; the next list tries again
    }
  };
  const now = logins.current();
  const models = new ModelRegistry(config, now, process.env, localPorts(process.env.LEMBAS_LOCAL_PORTS), remember, keptListings(db));
  models.followLogins(() => logins.current(), now);
  const library = libraryBackend(config, db, process.env);
  // Shared by the code index and the engine, and compiled again only when config.yaml's protected changes (bench/START.md).
  const guarded = liveProtectedPaths(config, [ctx.paths.configDir, ctx.paths.stateDir]);
  const code = new LazyCodeIndexes(config, db, process.env, guarded);
  // The instance's personalization, in place of config.yaml's personality and instructions when it applies.
  const reads = new AbortController();
  // Whether each login's token has the account's library, checked again when the kept answer is a day old: for the next session.
  if (config.library !== "local") refreshAccountLibrary(db, listLogins(db), { signal: reads.signal }).catch(() => {});
  const personal = personalEntry(db, config, () => listLogins(db), { signal: reads.signal });
  const engine = new Engine({ db, paths: ctx.paths, config, models, tools: ALL_TOOLS, holder, personal, mcp: mcpWiring({ db, config, vars: commandEnv ?? process.env }), protectedPaths: guarded, ...(onFileUse ? { onFileUse } : {}), ...(commandEnv ? { commandEnv } : {}), ...(library ? { library } : {}), code });
  followConfig(ctx, engine, () => models.setLogins(registryLogins(db)));
  // A process that ends without process.exit (lembas run) drops a read still going: the next session reads again.
  return { engine, models, logins, dropReads: () => reads.abort() };
}

/** The store's logins as the registry takes them (again after the terminal's own login or logout: ModelRegistry.setLogins). */
export function registryLogins(db: Db): RegistryLogin[] {
  return listLogins(db).map(({ name, url, token, protocols, providers }) => ({ name, url, token, protocols, providers }));
}
