import { existsSync } from "node:fs";
import { z } from "zod";
import { HOOK_EVENTS, type HookGroup, type HooksConfig, hookGroupSchema } from "../config/hook-schemas.ts";
import type { Db } from "../store/db.ts";
// The table keeps the person's yes to a project file's commands by path and content hash: .mcp.json's servers, and the settings files' hooks.
import { approveMcpFile, isMcpApproved } from "../store/mcp-approvals.ts";
import { trustedRootOf } from "../store/trust.ts";
import { type HookSpec, hookSpecs } from "./hook-set.ts";
import { namedContent, namedFiles } from "./hook-scripts.ts";
import { runnerFiles } from "./hook-runners.ts";
import { PROJECT_SETTINGS_FILES, ProjectSettings } from "./project-settings.ts";
import { lazily } from "../lazy.ts";

/** Where a project's hooks are written, at its root: lembas's own file, and Claude Code's shared and personal ones (read too). */
export const PROJECT_HOOK_FILES = PROJECT_SETTINGS_FILES;

/**
 * One settings file's hooks. `state`: invalid (the file cannot be read: problems say why);
 * untrusted (the project is not: they never run); needs-approval (the person has not approved them
 * as they read now); approved (they run).
 */
export type ProjectHookFile = {
  /** As the project names it (.agent/settings.json). */
  file: string;
  /** Absolute, symlinks resolved: what an approval is kept for. */
  path: string;
  state: "untrusted" | "invalid" | "needs-approval" | "approved";
  specs: HookSpec[];
  /**
   * The project files the hooks run, absolute: those their commands name (their scripts) and those
   * their runners read for what to run (package.json for `npm test`, the Makefile for `make`), as
   * they are there now. The approval covers them, and the runners' files not there yet too.
   */
  scripts: string[];
  /** The hash of the hooks as written and of the files they run (those not there as not there), which an approval names. */
  hash: string;
  problems: string[];
};

/** A settings file's `hooks`, made the first time a project has a settings file. */
const settingsSchema = lazily(() => z.looseObject({ hooks: z.record(z.string(), z.unknown()).optional() }));
const KNOWN: ReadonlySet<string> = new Set(HOOK_EVENTS);

/**
 * The hooks of the project at ROOT, file by file (those with a `hooks` key, or that do not read),
 * as they run from CWD (their runners' files are looked for from there up). The files they run are
 * hashed again at every call: a session asks before every hook, and a file the model wrote since
 * must not run on an earlier hash.
 */
export function projectHooks(root: string, db: Db, opts: { settings?: ProjectSettings; cwd?: string } = {}): ProjectHookFile[] {
  const settings = opts.settings ?? new ProjectSettings(root);
  const files = settings.files();
  if (files.length === 0) return [];
  const trusted = trustedRootOf(db, root) !== null;
  return files.flatMap((read): ProjectHookFile[] => {
    const { file, path } = read;
    if ("problem" in read) return [{ file, path, state: "invalid", specs: [], scripts: [], hash: "", problems: [read.problem] }];
    const { hooks, problems } = readHooks(path, read.json);
    const specs = hooks ? hookSpecs(hooks, file) : [];
    const named = specs.flatMap((spec) => namedFiles(spec.command, root));
    const covered = [...new Set([...named, ...specs.flatMap((spec) => runnerFiles(spec.command, root, opts.cwd))])];
    const scripts = covered.filter((path) => named.includes(path) || existsSync(path));
    const hash = new Bun.CryptoHasher("sha256").update(JSON.stringify(hooks)).update(namedContent(covered, root)).digest("hex");
    const state = hooks === null ? "invalid" : !trusted ? "untrusted" : isMcpApproved(db, path, hash) ? "approved" : "needs-approval";
    return specs.length === 0 && problems.length === 0 ? [] : [{ file, path, state, specs, scripts, hash, problems }];
  });
}

/** Keeps the person's yes to one file's hooks as they read with `hash` (projectHooks's). */
export function approveProjectHooks(db: Db, hooks: Pick<ProjectHookFile, "path" | "hash">): void {
  approveMcpFile(db, hooks.path, hooks.hash);
}

/**
 * A file's `hooks`, each event's groups checked as config.yaml's are; an event lembas does not run
 * (Claude Code has more) or a group that does not read is left out with a problem. `hooks` null
 * when the key has the wrong shape altogether.
 */
function readHooks(path: string, json: Record<string, unknown>): { hooks: HooksConfig | null; problems: string[] } {
  const settings = settingsSchema().safeParse(json);
  if (!settings.success) return { hooks: null, problems: [`${path}: hooks must be {EVENT: [{matcher, hooks: [{type: "command", command, timeout}]}]}`] };
  const hooks: Record<string, HookGroup[]> = {};
  const problems: string[] = [];
  for (const [event, groups] of Object.entries(settings.data.hooks ?? {})) {
    if (!KNOWN.has(event)) {
      problems.push(`${path}: hooks.${event}: lembas does not run ${event} hooks (it runs ${HOOK_EVENTS.join(", ")}): left out`);
      continue;
    }
    const parsed = z.array(hookGroupSchema()).safeParse(groups);
    if (parsed.success) hooks[event] = parsed.data;
    else {
      const issue = parsed.error.issues[0];
      problems.push(`${path}: hooks.${event}.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "does not read"}: ${event}'s hooks left out`);
    }
  }
  return { hooks: hooks as HooksConfig, problems };
}
