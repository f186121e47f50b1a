import { existsSync } from "node:fs";
import { indexOff } from "../code-index/opt-out.ts";
import type { Config } from "../config/schema.ts";
import { projectRoot } from "../project/root.ts";
import { codeIndexCounts } from "../store/code-files.ts";
import { openDb } from "../store/db.ts";
import type { Finding } from "./doctor-finding.ts";

/**
 * The code index of the project at `cwd` (no network, nothing listed): off and why, or how much
 * it holds. Nothing to say (no embedding model, nothing indexed): no line.
 */
export function checkCodeIndex(config: Config, dbFile: string, cwd: string): Finding[] {
  const root = projectRoot(cwd);
  const off = indexOff(config, root);
  if (off !== null) return config.embedding ? [{ ok: true, text: `code index: off for ${root} (${off})` }] : [];
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
