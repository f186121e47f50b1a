import type { Env } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import type { ProtectedPaths } from "../project/protected.ts";
import type { Db } from "../store/db.ts";
import type { CodeAnswer, CodeIndexBackend, CodeSearchOptions } from "../tools/code-search-backend.ts";
import type { CodeIndexes } from "./indexes.ts";
import { indexOff, type SettingsSeen } from "./opt-out.ts";

/**
 * The code indexes as the engine holds them from its start: whether a project is indexed is a
 * look at the config and a stat; the indexing code (embeddings, vectors, chunking) is loaded when
 * the first turn has its answer going, or at the first search, never before a first request.
 */
export class LazyCodeIndexes implements CodeIndexBackend {
  private loaded: Promise<CodeIndexes> | null = null;
  private readonly seen: SettingsSeen = new Map();

  constructor(
    private readonly config: Config,
    private readonly db: Db,
    private readonly env: Env,
    /** As config.yaml says them when the indexes are first used. */
    private readonly protectedPaths: () => ProtectedPaths,
  ) {}

  available(root: string): boolean {
    return indexOff(this.config, root, this.seen) === null;
  }

  warm(root: string, say?: (line: string) => void): void {
    if (!this.available(root)) return;
    void this.indexes()
      .then((all) => {
        const index = all.get(root);
        if (say) index.listen(say);
        return index.start();
      })
      .catch(() => {});
  }

  async search(root: string, query: string, options: CodeSearchOptions, signal: AbortSignal): Promise<CodeAnswer> {
    const off = indexOff(this.config, root, this.seen);
    if (off !== null) throw new Error(`this project is not indexed: ${off}`);
    return (await this.indexes()).get(root).search(query, options, signal);
  }

  async stop(): Promise<void> {
    await (await this.loaded)?.stop();
  }

  private indexes(): Promise<CodeIndexes> {
    this.loaded ??= import("./indexes.ts").then((m) => m.codeIndexes(this.config, this.db, this.env, this.protectedPaths()));
    return this.loaded;
  }
}
