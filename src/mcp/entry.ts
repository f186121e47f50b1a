import { expandRecord, expandVars, type Vars } from "./expand.ts";
import type { McpTransport } from "./spec.ts";

/** A server as config.yaml and .mcp.json write it: a command, or an url. */
export type ServerEntry =
  | { kind: "stdio"; command: string; args: readonly string[]; env: Record<string, string> }
  | { kind: "http"; url: string; headers: Record<string, string> };

/** A server that cannot be used, and why (a sentence); it is listed, never started. */
export type McpProblem = { name: string; problem: string };

/**
 * The transport an entry names, its `${VAR}` references expanded from `vars`; a reference to a
 * variable that is not set (and has no default) is a problem naming it.
 */
export function entryTransport(entry: ServerEntry, vars: Vars, cwd?: string): { ok: true; transport: McpTransport } | { ok: false; problem: string } {
  const missing: string[] = [];
  const one = (text: string): string => {
    const done = expandVars(text, vars);
    if (done.ok) return done.text;
    missing.push(...done.missing);
    return text;
  };
  const many = (record: Record<string, string>): Record<string, string> => {
    const done = expandRecord(record, vars);
    if (done.ok) return done.value;
    missing.push(...done.missing);
    return record;
  };
  const transport: McpTransport =
    entry.kind === "stdio"
      ? { type: "stdio", command: one(entry.command), args: entry.args.map(one), env: many(entry.env), ...(cwd ? { cwd } : {}) }
      : { type: "http", url: one(entry.url), headers: many(entry.headers) };
  if (missing.length > 0) {
    const names = [...new Set(missing)];
    return { ok: false, problem: `${names.length === 1 ? "variable" : "variables"} ${names.join(", ")} ${names.length === 1 ? "is" : "are"} not set (write \${NAME:-default} for a default)` };
  }
  if (transport.type === "http" && !(/^https?:\/\//i.test(transport.url) && URL.canParse(transport.url))) return { ok: false, problem: `${transport.url} is not an http(s) URL` };
  return { ok: true, transport };
}

/** One line naming what a server is: its command line, or its url (headers never shown: they may hold a token). */
export function describeTransport(transport: McpTransport): string {
  if (transport.type === "http") return transport.url;
  return [transport.command, ...transport.args].map(shellWord).join(" ");
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
