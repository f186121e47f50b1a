import { hookSpecs, SessionHooks } from "./hook-set.ts";
import { projectHooks } from "./project-hooks.ts";
import type { SessionDeps } from "./session-types.ts";
import { hidingDenied } from "./denied-reads.ts";
import { rulesInForce } from "./session-rules.ts";

/** The session as its hooks see it: where it is, its mode, and how it tells the person. */
type HookedSession = { readonly id: string; readonly root: string; readonly cwd: string; readonly mode: string; notice(message: string, level?: "info" | "warn"): void };

/**
 * A session's hooks: config.yaml's `hooks:`, then those of the project's settings files that the
 * person approved as they read now, in a trusted project; null when it has none and nothing to
 * say of the project's. What the project's files hold but does not run is said at the first prompt.
 */
export function sessionHooks(session: HookedSession, deps: SessionDeps): SessionHooks | null {
  const specs = hookSpecs(deps.config.hooks, "config.yaml");
  const notes: { message: string; level: "info" | "warn" }[] = [];
  for (const file of projectHooks(session.root, deps.db)) {
    if (file.state !== "untrusted") notes.push(...file.problems.map((message) => ({ message, level: "warn" as const })));
    if (file.state === "approved") specs.push(...file.specs);
    // Not trusting a project is the person's choice: said, not warned of.
    else if (file.state === "untrusted") notes.push({ level: "info", message: `the hooks of ${file.path} do not run: ${session.root} is not trusted (lembas trust, then lembas hooks approve, there)` });
    else if (file.state === "needs-approval") notes.push({ level: "warn", message: `the hooks of ${file.path} do not run: you have not approved them as they read now (lembas hooks lists them; lembas hooks approve, in ${session.root}, runs them)` });
  }
  if (specs.length === 0 && notes.length === 0) return null;
  const hooks = new SessionHooks(specs, {
    sessionId: session.id,
    root: session.root,
    cwd: () => session.cwd,
    mode: () => session.mode,
    // Hidden from a hook as from bash: what a Read(...) deny rule covers too.
    setup: hidingDenied(deps.commands, () => rulesInForce(session.root, deps.config, deps.db).rules, session.root),
    notice: (message, level) => session.notice(message, level),
  });
  hooks.noteLater(notes);
  return hooks;
}
