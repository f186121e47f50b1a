/**
 * A server's name as its tools are offered (`mcp__<name>__<tool>`): a model's function names take
 * letters, digits, _ and - only, so anything else becomes _ (as Claude Code does with its servers).
 */
export function toolSafeName(name: string): string {
  return name.trim().replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 48);
}
