import type { CodeIndexBackend, CodeSearch } from "../tools/code-search-backend.ts";

/** The `code` capability of a session or helper at `root`: its project's index, or none. */
export function codeOf(backend: CodeIndexBackend | undefined, root: string): CodeSearch | undefined {
  if (!backend) return undefined;
  return { search: (query, options, signal) => backend.search(root, query, options, signal) };
}
