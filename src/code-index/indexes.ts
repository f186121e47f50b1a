import { resolve } from "node:path";
import type { Env } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { embeddingTarget } from "../library/embedding-target.ts";
import type { ProtectedPaths } from "../project/protected.ts";
import type { Db } from "../store/db.ts";
import { listLogins } from "../store/logins.ts";
import { CodeIndex } from "./project-index.ts";

/** The code indexes of one process, one per project root, over one database. */
export type CodeIndexes = { get(root: string): CodeIndex; stop(): Promise<void> };

export function codeIndexes(config: Config, db: Db, env: Env, protectedPaths: ProtectedPaths): CodeIndexes {
  const indexes = new Map<string, CodeIndex>();
  const target = () => embeddingTarget(config, listLogins(db), env);
  return {
    get(root) {
      const absolute = resolve(root);
      let index = indexes.get(absolute);
      if (!index) {
        index = new CodeIndex({ db, root: absolute, target, protectedPaths });
        indexes.set(absolute, index);
      }
      return index;
    },
    async stop() {
      await Promise.all([...indexes.values()].map((i) => i.stop()));
    },
  };
}
