import type { Db } from "../store/db.ts";
import { setInstanceMcp } from "../store/instance-mcp.ts";
import type { Login } from "../store/logins.ts";
import { waitMs } from "../timing.ts";
import { type McpProbe, probeInstanceMcp } from "./from-instance.ts";

/** How long a probe nobody waits for may take: longer than a session would give it. */
export const BACKGROUND_PROBE_MS = 15_000;

type Probe = (url: string, token: string, signal: AbortSignal) => Promise<McpProbe>;

/**
 * The instances' /mcp probes a process runs in the background so that no session waits on one
 * (one a URL at a time): each answer is kept in the store for the next session; one that cannot
 * tell keeps nothing (`lembas mcp list` says why). Stopped with the engine.
 */
export class BackgroundProbes {
  private readonly running = new Set<string>();
  private readonly abort = new AbortController();

  constructor(
    private readonly db: Db,
    private readonly probe: Probe = (url, token, signal) => probeInstanceMcp(url, token, waitMs("BACKGROUND_PROBE_MS", BACKGROUND_PROBE_MS), signal),
  ) {}

  start(login: Pick<Login, "url" | "token">): void {
    if (this.abort.signal.aborted || this.running.has(login.url)) return;
    this.running.add(login.url);
    void this.probe(login.url, login.token, this.abort.signal)
      .then((found) => {
        if (found.found === "unknown" || this.abort.signal.aborted) return;
        setInstanceMcp(this.db, login.url, found.found === "serves");
      })
      // The store may be closed by then (the process ends): the next process asks again.
      .catch(() => undefined)
      .finally(() => this.running.delete(login.url));
  }

  /** Gives up the probes under way (their answers are not kept); starts no more. */
  stop(): void {
    this.abort.abort();
  }
}
