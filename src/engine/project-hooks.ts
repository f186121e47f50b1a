import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { HOOK_EVENTS, HookGroup, type HooksConfig } from "../config/schema.ts";
import { errorCode, errorMessage } from "../errors.ts";
import type { Db } from "../store/db.ts";
// The table keeps the person's yes to a project file's commands by path and content hash: .mcp.json's servers, and the settings files' hooks.
import { approveMcpFile, isMcpApproved } from "../store/mcp-approvals.ts";
import { realOrResolved, trustedRootOf } from "../store/trust.ts";
import { type HookSpec, hookSpecs } from "./hook-set.ts";

/** Where a project's hooks are written, at its root: lembas's own file, and Claude Code's (read too). */
export const PROJECT_HOOK_FILES = [".agent/settings.json", ".claude/settings.json"] as const;

/**
 * One settings file's hooks. `state`: untrusted (the project is not: they never run); invalid
 * (the file cannot be read: problems say why); needs-approval (the person has not approved them
 * as they read now); approved (they run).
 */
export type ProjectHookFile = {
  /** As the project names it (.agent/settings.json). */
  file: string;
  /** Absolute, symlinks resolved: what an approval is kept for. */
  path: string;
  state: "untrusted" | "invalid" | "needs-approval" | "approved";
  specs: HookSpec[];
  /** The hash of the hooks as written, which an approval names. */
  hash: string;
  problems: string[];
};

const Settings = z.looseObject({ hooks: z.record(z.string(), z.unknown()).optional() });
const KNOWN: ReadonlySet<string> = new Set(HOOK_EVENTS);

/** The hooks of the project at ROOT, file by file (those with a `hooks` key only). */
export function projectHooks(root: string, db: Db): ProjectHookFile[] {
  const trusted = trustedRootOf(db, root) !== null;
  return PROJECT_HOOK_FILES.flatMap((file) => {
    const read = readHooks(root, file);
    if (read === null) return [];
    const { path, hooks, problems } = read;
    const hash = new Bun.CryptoHasher("sha256").update(JSON.stringify(hooks)).digest("hex");
    const specs = hooks ? hookSpecs(hooks, file) : [];
    const state = !trusted ? "untrusted" : hooks === null ? "invalid" : isMcpApproved(db, path, hash) ? "approved" : "needs-approval";
    return specs.length === 0 && problems.length === 0 ? [] : [{ file, path, state, specs, hash, problems }];
  });
}

/** Keeps the person's yes to one file's hooks as they read with `hash` (projectHooks's). */
export function approveProjectHooks(db: Db, hooks: Pick<ProjectHookFile, "path" | "hash">): void {
  approveMcpFile(db, hooks.path, hooks.hash);
}

/**
 * A file's `hooks`, each event's groups checked as config.yaml's are; an event lembas does not run
 * (Claude Code has more) or a group that does not read is left out with a problem. Null when the
 * file is not there or has no hooks; `hooks` null when the file cannot be read at all.
 */
function readHooks(root: string, file: string): { path: string; hooks: HooksConfig | null; problems: string[] } | null {
  const path = realOrResolved(join(root, file));
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return null;
    return { path, hooks: null, problems: [`${path} cannot be read: ${errorMessage(error)}`] };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { path, hooks: null, problems: [`${path} is not JSON: ${errorMessage(error)}`] };
  }
  const settings = Settings.safeParse(json);
  if (!settings.success) return { path, hooks: null, problems: [`${path}: hooks must be {EVENT: [{matcher, hooks: [{type: "command", command, timeout}]}]}`] };
  if (!settings.data.hooks) return null;
  const hooks: Record<string, z.infer<typeof HookGroup>[]> = {};
  const problems: string[] = [];
  for (const [event, groups] of Object.entries(settings.data.hooks)) {
    if (!KNOWN.has(event)) {
      problems.push(`${path}: hooks.${event}: lembas does not run ${event} hooks (it runs ${HOOK_EVENTS.join(", ")}): left out`);
      continue;
    }
    const parsed = z.array(HookGroup).safeParse(groups);
    if (parsed.success) hooks[event] = parsed.data;
    else {
      const issue = parsed.error.issues[0];
      problems.push(`${path}: hooks.${event}.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "does not read"}: ${event}'s hooks left out`);
    }
  }
  return { path, hooks: hooks as HooksConfig, problems };
}
