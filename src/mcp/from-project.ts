import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { lazily } from "../lazy.ts";
import { errorCode, errorMessage } from "../errors.ts";
import type { Db } from "../store/db.ts";
import { approveMcpFile, isMcpApproved } from "../store/mcp-approvals.ts";
import { realOrResolved, trustedRootOf } from "../store/trust.ts";
import { describeTransport, entryTransport, type McpProblem, type ServerEntry } from "./entry.ts";
import { referencedVars, type Vars } from "./expand.ts";
import { toolSafeName } from "./names.ts";
import type { McpServerSpec } from "./spec.ts";

/** The file Claude Code reads a project's MCP servers from, at the project's root. */
export const PROJECT_MCP_FILE = ".mcp.json";

/**
 * Claude Code's .mcp.json: a server with no type is a command; http and sse name one at an url.
 * Made the first time a project has the file.
 */
const mcpFileSchemas = lazily(() => {
  const pairs = z.record(z.string().min(1), z.string());
  return {
    stdio: z.looseObject({ type: z.literal("stdio").optional(), command: z.string().min(1), args: z.array(z.string()).default([]), env: pairs.default({}) }),
    url: z.looseObject({ type: z.enum(["http", "sse"]).optional(), url: z.string().min(1), headers: pairs.default({}) }),
    file: z.looseObject({ mcpServers: z.record(z.string(), z.unknown()) }),
  };
});

/** One server of the file, as the approval question shows it: as written, before `${VAR}` is expanded. */
export type ServerToApprove = {
  name: string;
  /** Its command line, or its url. */
  what: string;
  /** The variables it sets for the command (names only: values may be secrets). */
  env: string[];
  /** Header names it sends (values may be secrets). */
  headers: string[];
  /** The person's variables it reads through `${VAR}`. */
  reads: string[];
};

export type NeedsApproval = { path: string; hash: string; servers: ServerToApprove[] };

/**
 * What a project's .mcp.json gives a session. `state`: no file; the project is not trusted (the
 * file is ignored); the file cannot be read as .mcp.json (problems say why); its servers wait for
 * the person's approval of this content (needsApproval); or approved (specs).
 */
export type ProjectServers = {
  state: "none" | "untrusted" | "invalid" | "needs-approval" | "approved";
  specs: McpServerSpec[];
  needsApproval: NeedsApproval | null;
  problems: McpProblem[];
};

/**
 * The servers of `<root>/.mcp.json` (source "project", started in the root), only in a trusted
 * project and only once the person approved the file as it now reads (its SHA-256 is kept); any
 * change to it asks again. `${VAR}` and `${VAR:-default}` are expanded from `vars`, as Claude Code does.
 * `allowedHash`: the file's content allowed for this session only (`lembas run --yes`), never kept.
 */
export function projectServers(root: string, db: Db, vars: Vars = process.env, allowedHash?: string): ProjectServers {
  const none: ProjectServers = { state: "none", specs: [], needsApproval: null, problems: [] };
  const path = realOrResolved(join(root, PROJECT_MCP_FILE));
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return none;
    return { ...none, state: "invalid", problems: [{ name: PROJECT_MCP_FILE, problem: `${path} cannot be read: ${errorMessage(error)}` }] };
  }
  if (!trustedRootOf(db, root)) return { ...none, state: "untrusted" };
  const read = readEntries(path, text);
  if (!read.ok) return { ...none, state: "invalid", problems: [{ name: PROJECT_MCP_FILE, problem: read.problem }] };
  const hash = new Bun.CryptoHasher("sha256").update(text).digest("hex");
  if (hash !== allowedHash && !isMcpApproved(db, path, hash)) {
    const servers = read.entries.map(({ name, entry }) => toApprove(name, entry));
    return { ...none, state: "needs-approval", needsApproval: { path, hash, servers }, problems: read.problems };
  }
  const specs: McpServerSpec[] = [];
  const problems = [...read.problems];
  for (const { name, entry } of read.entries) {
    const made = entryTransport(entry, vars, root);
    if (made.ok) specs.push({ name, source: "project", transport: made.transport });
    else problems.push({ name, problem: `${path}'s ${name}: ${made.problem}` });
  }
  return { state: "approved", specs, needsApproval: null, problems };
}

/** Keeps the person's yes to `<root>/.mcp.json`'s servers as the file read with `hash` (needsApproval's). */
export function approveProjectServers(db: Db, root: string, hash: string): void {
  approveMcpFile(db, realOrResolved(join(root, PROJECT_MCP_FILE)), hash);
}

type Entries = { ok: true; entries: { name: string; entry: ServerEntry }[]; problems: McpProblem[] } | { ok: false; problem: string };

function readEntries(path: string, text: string): Entries {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `${path} is not JSON: ${errorMessage(error)}` };
  }
  const file = mcpFileSchemas().file.safeParse(json);
  if (!file.success) return { ok: false, problem: `${path} must be {"mcpServers": {NAME: {command, args, env} | {type: "http", url, headers}}}` };
  const entries: { name: string; entry: ServerEntry }[] = [];
  const problems: McpProblem[] = [];
  for (const [written, raw] of Object.entries(file.data.mcpServers)) {
    const name = toolSafeName(written);
    const made = fileEntry(raw);
    if (!/[A-Za-z0-9]/.test(name)) problems.push({ name: written, problem: `${path}: the server name ${JSON.stringify(written)} needs a letter or a digit` });
    else if (entries.some((e) => e.name === name)) problems.push({ name: written, problem: `${path}: ${JSON.stringify(written)} is named ${name} as a tool prefix, like an earlier server` });
    else if (!made.ok) problems.push({ name, problem: `${path}'s ${written}: ${made.problem}` });
    else entries.push({ name, entry: made.entry });
  }
  return { ok: true, entries, problems };
}

function fileEntry(raw: unknown): { ok: true; entry: ServerEntry } | { ok: false; problem: string } {
  const type = typeof raw === "object" && raw !== null && "type" in raw ? raw.type : undefined;
  const hasUrl = typeof raw === "object" && raw !== null && "url" in raw;
  if (type === "sse") return { ok: false, problem: "an sse server: lembas reaches MCP servers over streamable HTTP (type http) or as a command" };
  if (type === "http" || (type === undefined && hasUrl)) {
    const parsed = mcpFileSchemas().url.safeParse(raw);
    if (!parsed.success) return { ok: false, problem: "an http server needs url (a string) and headers ({NAME: value}, optional)" };
    return { ok: true, entry: { kind: "http", url: parsed.data.url, headers: parsed.data.headers } };
  }
  if (type !== undefined && type !== "stdio") return { ok: false, problem: `type ${JSON.stringify(type)} is not one lembas knows (stdio, http)` };
  const parsed = mcpFileSchemas().stdio.safeParse(raw);
  if (!parsed.success) return { ok: false, problem: "a server needs command (a string), args (a list of strings, optional) and env ({NAME: value}, optional)" };
  return { ok: true, entry: { kind: "stdio", command: parsed.data.command, args: parsed.data.args, env: parsed.data.env } };
}

function toApprove(name: string, entry: ServerEntry): ServerToApprove {
  if (entry.kind === "http") {
    const texts = [entry.url, ...Object.values(entry.headers)];
    return { name, what: entry.url, env: [], headers: Object.keys(entry.headers), reads: [...new Set(texts.flatMap(referencedVars))] };
  }
  const texts = [entry.command, ...entry.args, ...Object.values(entry.env)];
  const what = describeTransport({ type: "stdio", command: entry.command, args: [...entry.args], env: {} });
  return { name, what, env: Object.keys(entry.env), headers: [], reads: [...new Set(texts.flatMap(referencedVars))] };
}
