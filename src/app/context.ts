import { loadConfig } from "../config/load.ts";
import { type Paths, resolvePaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { type Db, openDb } from "../store/db.ts";

/** What a subcommand needs, opened on first use: paths always, the config and the store when asked. */
export type Context = { paths: Paths; config(): Config; db(): Db };

/** `store`: the store as opened already (the terminal checks the session to open before loading this). */
export function createContext(env = process.env, store?: () => Db): Context {
  const paths = resolvePaths(env);
  let config: Config | undefined;
  let db: Db | undefined;
  return {
    paths,
    config: () => (config ??= loadConfig(paths.configFile)),
    db: store ?? (() => (db ??= openDb(paths.dbFile))),
  };
}
