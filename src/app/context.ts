import { type ConfigNews, LiveConfig } from "../config/live.ts";
import { type Paths, resolvePaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { type Db, openDb } from "../store/db.ts";

/**
 * What a subcommand needs, opened on first use: paths always, the config and the store when asked.
 * `config()` is one object for the process's life whose keys read config.yaml as it is now (an edit
 * applies from the next step or request, config/live.ts); `onConfigNews` hears each reading after
 * the first, a refused file among them.
 */
export type Context = { paths: Paths; config(): Config; db(): Db; onConfigNews(listener: (news: ConfigNews) => void): () => void };

/** `store`: the store as opened already (the terminal checks the session to open before loading this). */
export function createContext(env = process.env, store?: () => Db): Context {
  const paths = resolvePaths(env);
  let live: LiveConfig | undefined;
  let db: Db | undefined;
  const config = () => (live ??= new LiveConfig(paths.configFile));
  return {
    paths,
    config: () => config().config,
    db: store ?? (() => (db ??= openDb(paths.dbFile))),
    onConfigNews: (listener) => config().onNews(listener),
  };
}
