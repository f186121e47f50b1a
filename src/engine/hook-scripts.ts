import { readFileSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { isInside } from "../paths.ts";
import { realOrResolved } from "../store/trust.ts";

/** The variables a hook's command may name its project by (hook-set.ts sets them). */
const PROJECT_DIR = /\$\{?(?:CLAUDE_PROJECT_DIR|LEMBAS_PROJECT_DIR)\}?/g;

/**
 * The project files a hook's command line names (`sh "$CLAUDE_PROJECT_DIR/.claude/hooks/pre.sh"`,
 * `./scripts/check.py`, `node hook.js`), absolute: what it runs besides the line itself, which the
 * person's approval must cover too. A word is taken when it names a path inside ROOT (relative
 * words from ROOT) that is a file, or, with a slash in it, that is not there yet. Paths outside
 * the project are the person's own and are not followed.
 */
export function namedFiles(command: string, root: string): string[] {
  const words = command.replace(PROJECT_DIR, root).split(/[\s;|&()<>`=]+/).map((w) => w.replace(/^['"]+|['"]+$/g, ""));
  const real = realOrResolved(root);
  const found = words.flatMap((word) => {
    if (word === "" || word.startsWith("-") || word.includes("$")) return [];
    const path = realOrResolved(isAbsolute(word) ? word : resolve(root, word));
    if (!isInside(path, real) || path === real) return [];
    const kind = kindOf(path);
    return kind === "file" || (kind === "absent" && word.includes("/")) ? [path] : [];
  });
  return [...new Set(found)];
}

/** What the files a project's hooks name hold, for their approval's hash: each path (from ROOT) with its content, or that it is not there. */
export function namedContent(paths: readonly string[], root: string): string {
  const real = realOrResolved(root);
  return paths
    .map((path) => {
      let content: string;
      try {
        content = new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");
      } catch {
        content = "(not there)";
      }
      return `${relative(real, path)}\0${content}`;
    })
    .join("\n");
}

function kindOf(path: string): "file" | "absent" | "other" {
  try {
    return statSync(path).isFile() ? "file" : "other";
  } catch {
    return "absent";
  }
}
