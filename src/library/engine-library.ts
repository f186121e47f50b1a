import type { Env } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import type { Db } from "../store/db.ts";
import { documentCount } from "../store/library.ts";
import type { LibraryBackend, Passage } from "../tools/library-backend.ts";
import type { LocalLibrary } from "./local.ts";
import { accountLibrary, selectLibrary } from "./selection.ts";

/**
 * The device's own library as the engine holds it from its start: asking whether it holds
 * anything is one count in the store, and the search code (embeddings, vectors, fusion) is
 * loaded at the first search, so that a process whose sessions never search does not load it
 * before its first answer.
 */
export class LazyLocalLibrary implements LibraryBackend {
  readonly kind = "local";
  private local: Promise<LocalLibrary> | null = null;

  constructor(
    private readonly config: Config,
    private readonly db: Db,
    private readonly env: Env,
  ) {}

  available(): boolean {
    return documentCount(this.db) > 0;
  }

  async refresh(signal: AbortSignal): Promise<string[]> {
    return (await this.loaded()).refresh(signal);
  }

  async search(query: string, limit: number, signal: AbortSignal): Promise<Passage[]> {
    return (await this.loaded()).search(query, limit, signal);
  }

  private loaded(): Promise<LocalLibrary> {
    this.local ??= import("./open.ts").then((m) => m.localLibrary(this.config, this.db, this.env));
    return this.local;
  }
}

/**
 * The library the model's tool reaches: the account's when it is the choice and a login has it;
 * the device's own when it is the choice, or may become it (nothing set: it is offered once it
 * holds documents); none for `library: lembas` without a login that has it.
 */
export function libraryBackend(config: Config, db: Db, env: Env): LibraryBackend | undefined {
  const selection = selectLibrary(config, db);
  if (selection.choice === "lembas") return selection.login ? accountLibrary(config, selection.login) : undefined;
  return new LazyLocalLibrary(config, db, env);
}
