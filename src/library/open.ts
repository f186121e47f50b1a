import type { Env } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import type { Db } from "../store/db.ts";
import { listLogins } from "../store/logins.ts";
import type { LibraryBackend } from "./backend.ts";
import { libraryChoice } from "./choice.ts";
import { embeddingTarget } from "./embedding-target.ts";
import { QUIET, type Reporter } from "./indexer.ts";
import { LocalLibrary } from "./local.ts";

/** The device's own library over the store, its embedding model resolved when first used. */
export function localLibrary(config: Config, db: Db, env: Env, reporter: Reporter = QUIET): LocalLibrary {
  return new LocalLibrary(db, () => embeddingTarget(config, listLogins(db), env), reporter);
}

/**
 * The library the model's tool reaches, by the rule of choice.ts: the device's own when it is the
 * choice, or may become it (nothing set: it is offered once it holds documents); none for the
 * account's until that part exists (it comes through the instance's /mcp).
 */
export function libraryBackend(config: Config, db: Db, env: Env, accountLibrary = false): LibraryBackend | undefined {
  const choice = libraryChoice({ configured: config.library, accountLibrary, localDocuments: true });
  return choice === "local" ? localLibrary(config, db, env) : undefined;
}
