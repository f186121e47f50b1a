import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";
import { type ConfiguredServers, extensionOf, findServer, specsFor } from "./known-servers.ts";

/** The most directory entries looked at: a glance at the project, not a listing of it. */
const LOOKED_AT = 3_000;
/** Directories that hold what the project depends on or builds, not its own sources. */
const PASSED_OVER = new Set(["node_modules", "target", "vendor", "dist", "build", "__pycache__", "venv"]);

/**
 * Whether a server is installed (and allowed: `projectBins`) for a kind of file the project holds,
 * as far as a bounded look from its root (shallowest first) finds them: the `lsp` tool is offered
 * then, and its first call starts the server.
 */
export function serverInstalledFor(root: string, servers: ConfiguredServers, PATH: string, projectBins: boolean): boolean {
  const tried = new Set<string>();
  for (const ext of extensionsIn(root)) {
    if (tried.has(ext)) continue;
    tried.add(ext);
    const specs = specsFor(ext, servers);
    if (specs.length > 0 && findServer(specs, root, PATH, projectBins)) return true;
  }
  return false;
}

/** The extensions of the files under ROOT, breadth first, hidden and dependency directories passed over. */
function* extensionsIn(root: string): Generator<string> {
  const dirs = [root];
  let looked = 0;
  for (let i = 0; i < dirs.length && looked < LOOKED_AT; i++) {
    const dir = dirs[i] ?? root;
    let names: Dirent[];
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of names) {
      if (++looked > LOOKED_AT) return;
      if (entry.name.startsWith(".") && entry.isDirectory()) continue;
      if (entry.isDirectory()) {
        if (!PASSED_OVER.has(entry.name)) dirs.push(join(dir, entry.name));
      } else {
        const ext = extensionOf(entry.name);
        if (ext) yield ext;
      }
    }
  }
}
