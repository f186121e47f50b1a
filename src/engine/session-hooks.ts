import { join } from "node:path";
import { hookSpecs, type HookNote, SessionHooks } from "./hook-set.ts";
import { projectHooks } from "./project-hooks.ts";
import { ProjectSettings } from "./project-settings.ts";
import { HookTranscript } from "./hook-transcript.ts";
import type { StoredMessage } from "./records.ts";
import type { SessionDeps } from "./session-types.ts";
import { hidingDenied } from "./denied-reads.ts";
import { rulesInForce } from "./session-rules.ts";

/** The session as its hooks see it: where it is, its mode, and how it tells the person. */
type HookedSession = {
  readonly id: string;
  readonly root: string;
  readonly cwd: string;
  readonly mode: string;
  messages(): StoredMessage[];
  notice(message: string, level?: "info" | "warn"): void;
};

/**
 * A session's hooks: config.yaml's `hooks:` (as the file reads now), then those of the project's
 * settings files that the person approved as they read now (with the project files they run), in a
 * trusted project. The files
 * are looked at again before each use (read again when their stamps changed), so an edit, an
 * approval or `lembas untrust` holds from the next hook on. What the project's files hold but does
 * not run, and a file that does not read, is said once, from the first prompt.
 */
export function sessionHooks(session: HookedSession, deps: SessionDeps): SessionHooks {
  // config.yaml's hooks as now in force (config/live.ts gives a new object once the file changed): made again then only.
  let own = { from: deps.config.hooks, specs: hookSpecs(deps.config.hooks, "config.yaml") };
  const settings = new ProjectSettings(session.root);
  const transcript = new HookTranscript(hookTranscriptPath(deps.paths.stateDir, session.id), session);
  const source = () => {
    const hooks = deps.config.hooks;
    if (hooks !== own.from) own = { from: hooks, specs: hookSpecs(hooks, "config.yaml") };
    const specs = [...own.specs];
    const notes: HookNote[] = [];
    for (const file of projectHooks(session.root, deps.db, { settings, cwd: session.cwd })) {
      if (file.state !== "untrusted") notes.push(...file.problems.map((message) => ({ message, level: "warn" as const })));
      if (file.state === "approved") specs.push(...file.specs);
      // Not trusting a project is the person's choice: said, not warned of.
      else if (file.state === "untrusted") notes.push({ level: "info", message: `the hooks of ${file.path} do not run: ${session.root} is not trusted (lembas trust, then lembas hooks approve, there)` });
      else if (file.state === "needs-approval") notes.push({ level: "warn", message: `the hooks of ${file.path} do not run: you have not approved them${file.scripts.length > 0 ? " and the project files they run" : ""} as they read now (lembas hooks lists them; lembas hooks approve, in ${session.cwd}, runs them)` });
    }
    return { specs, notes };
  };
  return new SessionHooks(source, {
    sessionId: session.id,
    root: session.root,
    cwd: () => session.cwd,
    mode: () => session.mode,
    // Hidden from a hook as from bash: what a Read(...) deny rule covers too.
    setup: hidingDenied(deps.commands, () => rulesInForce(session.root, deps.config, deps.db).rules, session.root),
    transcript: () => transcript.refresh(),
    notice: (message, level) => session.notice(message, level),
  });
}

/** Where a session's transcript for its hooks is written: in the state dir, which commands do not see (a hook is shown its own). */
export function hookTranscriptPath(stateDir: string, sessionId: string): string {
  return join(stateDir, "transcripts", `${sessionId}.jsonl`);
}
