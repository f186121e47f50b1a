import type { Env } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import type { Db } from "../store/db.ts";
import { listLogins } from "../store/logins.ts";
import { embeddingTarget } from "./embedding-target.ts";
import { QUIET, type Reporter } from "./indexer.ts";
import { LocalLibrary } from "./local.ts";

/** The device's own library over the store, its embedding model resolved when first used. */
export function localLibrary(config: Config, db: Db, env: Env, reporter: Reporter = QUIET): LocalLibrary {
  return new LocalLibrary(db, () => embeddingTarget(config, listLogins(db), env), reporter);
}
