import { hookSpecs, SessionHooks } from "./hooks.ts";
import type { SessionDeps } from "./session-types.ts";

/** The session as its hooks see it: where it is, its mode, and how it tells the person. */
type HookedSession = { readonly id: string; readonly root: string; readonly cwd: string; readonly mode: string; notice(message: string, level?: "info" | "warn"): void };

/** A session's hooks: config.yaml's `hooks:`; null when it has none. */
export function sessionHooks(session: HookedSession, deps: SessionDeps): SessionHooks | null {
  const specs = hookSpecs(deps.config.hooks, "config.yaml");
  if (specs.length === 0) return null;
  return new SessionHooks(specs, {
    sessionId: session.id,
    root: session.root,
    cwd: () => session.cwd,
    mode: () => session.mode,
    setup: deps.commands,
    notice: (message, level) => session.notice(message, level),
  });
}
