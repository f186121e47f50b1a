/**
 * Whether the session shown is shared with the web and, when it is not, why — said short in the
 * status bar ("not shared: outside remote.roots") and whole, with what to do, by /status. In the
 * order a person would fix them: their own /unshare, the device's rule (remote.roots, trust), the
 * service, the links.
 */
import { insideRoots, rootsOf, sessionRefusal } from "../acp/places.ts";
import type { Config } from "../config/schema.ts";
import type { Db } from "../store/db.ts";
import type { ServiceLinkState } from "./service-link.ts";
import type { TerminalShare } from "./share.ts";

export type SharingSaid = { shared: boolean; bar: string; sentence: string };

type SessionRef = { id: string; cwd: string; root: string };

const START_SERVICE = "lembas serve, or lembas service install";

export function sharingSaid(session: SessionRef, share: TerminalShare | null, service: ServiceLinkState, config: Config, db: Db): SharingSaid {
  if (share?.sharing === session.id) {
    const links = share.instances;
    if (links.length > 0) return { shared: true, bar: `shared · ${links.join(", ")}`, sentence: `shared with the web: ${links.join(", ")}` };
    return notShared("no link up", "the service has this session, but no instance is linked now: it is announced as soon as one links (lembas status shows the logins and their links)");
  }
  if (share?.choices.isStopped(session.id)) return notShared("/unshare", "you stopped sharing it with /unshare (/share shares it again)");
  if (!share?.choices.isByName(session.id)) {
    const refusal = sessionRefusal(session, config.remote, db);
    if (refusal !== null) return notShared(refusalShort(session, config), `${refusal}; /share shares it all the same`);
  }
  if (service.kind === "mismatch") return notShared("service of another version", service.sentence);
  if (service.kind === "none" || !share) return notShared("no service running", `no service is running: it is shared as soon as one starts (${START_SERVICE})`);
  const refused = share.refusal(session.id);
  if (refused !== null) return notShared("the service refused", `the service did not share it: ${refused}`);
  return notShared("not yet", "it is being handed to the service");
}

function notShared(bar: string, sentence: string): SharingSaid {
  return { shared: false, bar: `not shared: ${bar}`, sentence: `not shared with the web: ${sentence}` };
}

/** The automatic rule's refusal in a few words. */
function refusalShort(session: SessionRef, config: Config): string {
  if (rootsOf(config.remote).length === 0) return "remote.roots is empty";
  if (!insideRoots(session.cwd, config.remote) || !insideRoots(session.root, config.remote)) return "outside remote.roots";
  if (config.remote.require_trust) return "not trusted";
  return "the web may not open it";
}
