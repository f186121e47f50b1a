import { existsSync } from "node:fs";
import { indexOff } from "../code-index/opt-out.ts";
import type { Config } from "../config/schema.ts";
import { projectRoot } from "../project/root.ts";
import { codeIndexCounts } from "../store/code-files.ts";
import { openDb } from "../store/db.ts";
import type { Finding } from "./doctor-finding.ts";

/**
 * The code index of the project at `cwd` (no network, nothing listed): off and why, or how much
 * it holds. Without an embedding model it says so and how to set one: code_search is missing then.
 */
export function checkCodeIndex(config: Config, dbFile: string, cwd: string): Finding[] {
  const root = projectRoot(cwd);
  const off = indexOff(config, root);
  if (!config.embedding) return [{ ok: true, text: `code index: off (no embedding model, so no code_search): set one with lembas config set embedding CONNECTION/MODEL (e.g. local/nomic-embed-text), or log in to an instance, which sets it` }];
  if (off !== null) return [{ ok: true, text: `code index: off for ${root} (${off})` }];
  if (!existsSync(dbFile)) return [{ ok: true, text: `code index: ${root} is not indexed yet (a session indexes it in the background; lembas index rebuild does it now)` }];
  const db = openDb(dbFile);
  try {
    const counts = codeIndexCounts(db, root);
    if (counts.files === 0) return [{ ok: true, text: `code index: ${root} is not indexed yet (a session indexes it in the background; lembas index rebuild does it now)` }];
    return [{ ok: true, text: `code index: ${root}, ${counts.files.toLocaleString("en")} files, ${counts.chunks.toLocaleString("en")} chunks (embedding: ${counts.models.join(", ") || config.embedding}; lembas index status says what waits)` }];
  } finally {
    db.close();
  }
}
