/**
 * Permission rules in Claude Code's shape: a tool's name, alone or with what it covers in
 * parentheses: `Bash(npm test)`, `Bash(git status:*)`, `Edit(src/**)`, `Read(~/.ssh/**)`,
 * `WebFetch(domain:example.com)`, `mcp__server__tool`; lembas's own tool names too (`bash(ls)`).
 */
export type PermissionRule = {
  /** The rule as written. */
  text: string;
  /** What it is about: commands, file changes, reads, hosts fetched, or one tool (by lembas's name, an MCP tool's included). */
  kind: "command" | "edit" | "read" | "fetch" | "tool";
  /** kind tool: the tool's name, or an MCP server's prefix (`mcp__server__`) for all its tools. */
  tool?: string;
  /** What it covers; absent: every call of its kind. command: the line or `prefix:*`; edit/read: a glob; fetch: a host. */
  pattern?: string;
};

/** The peers' tool names and lembas's, to what a rule is about. */
const KINDS: Record<string, PermissionRule["kind"]> = {
  bash: "command",
  edit: "edit",
  multiedit: "edit",
  multi_edit: "edit",
  write: "edit",
  notebookedit: "edit",
  read: "read",
  grep: "read",
  glob: "read",
  ls: "read",
  list: "read",
  webfetch: "fetch",
  fetch: "fetch",
};

const SHAPE = /^([A-Za-z_][A-Za-z0-9_-]*)(?:\((.*)\))?$/s;

/** A rule read from its text, or a sentence saying what is wrong with it. */
export function parseRule(text: string): { rule: PermissionRule } | { error: string } {
  const trimmed = text.trim();
  const shape = SHAPE.exec(trimmed);
  if (!shape) return { error: `"${text}" is not a rule: write a tool's name, alone or with what it covers in parentheses (Bash(npm test), Edit(src/**))` };
  const [, name = "", inner] = shape;
  const pattern = inner?.trim();
  if (inner !== undefined && !pattern) return { error: `"${text}" has nothing in its parentheses: write what it covers, or the tool's name alone` };
  if (name.startsWith("mcp__")) {
    if (pattern !== undefined) return { error: `"${text}": an MCP tool's rule takes no parentheses (mcp__server__tool, or mcp__server for all its tools)` };
    const parts = name.split("__");
    if (parts.length < 2 || !parts[1]) return { error: `"${text}" names no MCP server (mcp__server__tool)` };
    const tool = parts.length === 2 || (parts.length === 3 && parts[2] === "*") ? `mcp__${parts[1]}__` : name;
    return { rule: { text: trimmed, kind: "tool", tool } };
  }
  const kind = KINDS[name.toLowerCase()];
  if (!kind) {
    if (pattern !== undefined) return { error: `"${text}": lembas reads what a rule covers only for Bash, Edit, Write, Read and WebFetch; write ${name} alone for every call of it` };
    return { rule: { text: trimmed, kind: "tool", tool: name.toLowerCase() } };
  }
  if (pattern === undefined) return { rule: { text: trimmed, kind } };
  if (kind === "fetch") {
    const host = /^domain:([A-Za-z0-9*][A-Za-z0-9.*-]*)$/.exec(pattern);
    if (!host?.[1]) return { error: `"${text}": a WebFetch rule names a host as domain:example.com` };
    return { rule: { text: trimmed, kind, pattern: host[1].toLowerCase() } };
  }
  if (kind === "command" && pattern.endsWith(":*") && !pattern.slice(0, -2).trim()) return { error: `"${text}" has no command before :*` };
  return { rule: { text: trimmed, kind, pattern } };
}

/** `permissions:` in config.yaml and in a settings file, checked (config/permissions-schema.ts). */
export type PermissionsConfig = { allow: string[]; ask: string[]; deny: string[] };

/** The rule of text already checked (a config's, a kept one's). */
export function ruleOf(text: string): PermissionRule | null {
  const parsed = parseRule(text);
  return "rule" in parsed ? parsed.rule : null;
}
