/** The longest tool name the model APIs take (OpenAI's and Anthropic's limit). */
export const MAX_TOOL_NAME = 64;

/** A name part as the model APIs take it: only [A-Za-z0-9_-], anything else an underscore. */
export function sanitizeName(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_-]/g, "_");
  return clean || "_";
}

/**
 * The name an MCP tool is offered as: `mcp__<server>__<tool>`, sanitised, at most 64 characters,
 * and not one of `taken` (a collision gets a numbered suffix). `taken` is updated.
 */
export function offeredToolName(server: string, tool: string, taken: Set<string>): string {
  const full = `mcp__${sanitizeName(server)}__${sanitizeName(tool)}`;
  let name = full.slice(0, MAX_TOOL_NAME);
  for (let n = 2; taken.has(name); n++) {
    const suffix = `_${n}`;
    name = full.slice(0, MAX_TOOL_NAME - suffix.length) + suffix;
  }
  taken.add(name);
  return name;
}

/**
 * A server's name as the sources keep it: sanitised like every name part, and short enough that
 * `mcp__<name>__` leaves room for the tool's own name in 64 characters.
 */
export function toolSafeName(name: string): string {
  return sanitizeName(name.trim()).slice(0, 48);
}
