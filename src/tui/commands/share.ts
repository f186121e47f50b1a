import type { CommandHost } from "../command-host.ts";
import { NO_SERVICE_TO_SHARE } from "../share-choices.ts";
import { say } from "./say.ts";

/**
 * /share and /unshare: the person at the terminal shares this session with the web by name (even
 * outside remote.roots, or untrusted), or stops sharing it — and it is not shared again on its own
 * until /share. The service must run for either to reach the web; /share without one is kept for
 * when one starts.
 */
export async function share(app: CommandHost): Promise<void> {
  const { runtime } = app;
  const session = runtime.session;
  const sharing = runtime.share;
  if (sharing?.sharing === session.id) return say(app, `this session is already shared${withWhom(sharing.instances)}`);
  const service = runtime.service;
  if (service.kind === "mismatch") return say(app, service.sentence, "warn");
  if (!sharing) return say(app, NO_SERVICE_TO_SHARE, "warn");
  sharing.choices.byName(session.id);
  const outcome = await sharing.share(session);
  if (outcome.kind === "shared") {
    const whom = sharing.instances;
    return say(app, whom.length > 0 ? `shared with the web: ${whom.join(", ")}` : "shared: no instance is linked now, it is announced when one links");
  }
  if (outcome.kind === "refused") return say(app, `the service did not share this session: ${outcome.reason}`, "warn");
  say(app, NO_SERVICE_TO_SHARE, "warn");
}

export async function unshare(app: CommandHost): Promise<void> {
  const { runtime } = app;
  const session = runtime.session;
  const sharing = runtime.share;
  if (!sharing) return say(app, "this session is not shared");
  const wanted = sharing.choices.wants(session, runtime.ctx.config(), runtime.ctx.db());
  sharing.choices.stop(session.id);
  if (sharing.sharing === session.id) {
    // The terminal keeps holding it: the web hears left, not available.
    await sharing.leave(session.id);
    return say(app, "this session is no longer shared (/share shares it again)");
  }
  say(app, wanted ? "this session is not shared now, and will not be when a service starts (/share shares it)" : "this session is not shared");
}

function withWhom(instances: readonly string[]): string {
  return instances.length > 0 ? ` with ${instances.join(", ")}` : "";
}
