/**
 * The service's status as its control socket's `GET /status` answers it (service/control.ts
 * serves it), and the one way every front end and the doctor read it.
 */
import { z } from "zod";
import { errorCode, errorMessage } from "../errors.ts";

/** A terminal connected over the IPC, as `GET /status` lists it. */
export const TerminalStatus = z.object({
  pid: z.number().int(),
  version: z.string(),
  /** When it said hello (ISO 8601). */
  since: z.string(),
  procId: z.string().optional(),
});
export type TerminalStatus = z.infer<typeof TerminalStatus>;

/** One link to a LLeMbas instance, as the service sees it now. */
export const LinkStatus = z.object({
  /** The login's name. */
  name: z.string(),
  /** The instance's URL. */
  url: z.string(),
  /** The link layer's word for it: `connected`, `connecting`, `waiting`, `refused`… */
  state: z.string(),
  /** When it entered that state (ISO 8601). */
  since: z.string(),
  /** The sessions the instance has open over it. */
  sessions: z.array(z.string()),
});
export type LinkStatus = z.infer<typeof LinkStatus>;

/** What `GET /status` answers. */
export const ServiceStatus = z.object({
  pid: z.number().int(),
  version: z.string(),
  /** ISO 8601. */
  startedAt: z.string(),
  links: z.array(LinkStatus),
  /** The terminals connected over the IPC (absent from a service older than the IPC). */
  terminals: z.array(TerminalStatus).default([]),
});
export type ServiceStatus = z.infer<typeof ServiceStatus>;

/** What {@link readServiceStatus} found: the status, or why there is none (`stale`: a socket no one listens on). */
export type StatusReading = { running: true; status: ServiceStatus } | { running: false; stale: boolean; reason: string };

/** Asks the service on `socketPath` for its status, giving up after `timeoutMs`. */
export async function readServiceStatus(socketPath: string, timeoutMs = 2000): Promise<StatusReading> {
  let response: Response;
  try {
    response = await fetch("http://lembas/status", { unix: socketPath, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    return notAnswering(socketPath, error, timeoutMs);
  }
  const body: unknown = await response.json().catch(() => null);
  const status = ServiceStatus.safeParse(body);
  if (!response.ok || !status.success) {
    return { running: false, stale: false, reason: `the process on ${socketPath} answered, but not with a lembas status (HTTP ${response.status})` };
  }
  return { running: true, status: status.data };
}

function notAnswering(socketPath: string, error: unknown, timeoutMs: number): StatusReading {
  const code = errorCode(error);
  if (code === "ENOENT") return { running: false, stale: false, reason: `there is no control socket at ${socketPath}` };
  if (code === "ECONNREFUSED") return { running: false, stale: true, reason: `nothing listens on ${socketPath} (left by a service that stopped)` };
  if (error instanceof DOMException && error.name === "TimeoutError") {
    return { running: false, stale: false, reason: `the process on ${socketPath} did not answer within ${timeoutMs} ms` };
  }
  return { running: false, stale: false, reason: `could not reach ${socketPath}: ${errorMessage(error)}` };
}

/** The terminals connected to the service, on one line. */
export function terminalsLine(terminals: readonly TerminalStatus[]): string {
  if (terminals.length === 0) return "terminals: none connected";
  return `terminals: ${terminals.length} connected (${terminals.map((t) => `pid ${t.pid} since ${t.since}`).join(", ")})`;
}
