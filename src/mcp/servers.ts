import type { McpServerSpec, McpSource } from "./spec.ts";

/** Which source's server keeps a name several give: the session's own first, the instance's last. */
export const SOURCE_ORDER: readonly McpSource[] = ["editor", "project", "config", "instance"];

/**
 * Every source's servers as one list, one server a name: where two sources name the same server,
 * the one earlier in {@link SOURCE_ORDER} is used and the other is `shadowed` (say so, once).
 */
export function mergeServers(specs: readonly McpServerSpec[]): { specs: McpServerSpec[]; shadowed: { spec: McpServerSpec; by: McpSource }[] } {
  const ordered = [...specs].sort((a, b) => SOURCE_ORDER.indexOf(a.source) - SOURCE_ORDER.indexOf(b.source));
  const kept = new Map<string, McpServerSpec>();
  const shadowed: { spec: McpServerSpec; by: McpSource }[] = [];
  for (const spec of ordered) {
    const first = kept.get(spec.name);
    if (first) shadowed.push({ spec, by: first.source });
    else kept.set(spec.name, spec);
  }
  return { specs: [...kept.values()], shadowed };
}

/** A server's headers fit to log or show: a secret one's value (the device token) is never written out. */
export function shownHeaders(spec: McpServerSpec): Record<string, string> {
  if (spec.transport.type !== "http") return {};
  const secret = new Set((spec.secretHeaders ?? []).map((h) => h.toLowerCase()));
  return Object.fromEntries(Object.entries(spec.transport.headers).map(([k, v]) => [k, secret.has(k.toLowerCase()) ? "(secret)" : v]));
}
