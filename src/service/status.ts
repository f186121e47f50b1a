/** `lembas service status`: what the service manager says and what the service itself says. */
import { type StatusReading, terminalsLine } from "../app/service-status.ts";
import type { ManagerState } from "./manager-interface.ts";

/** The lines to print, and whether the service answers on its control socket. */
export type StatusReport = { lines: string[]; running: boolean };

/** Puts the manager's state and the control socket's answer into lines, one fact a line. */
export function describeStatus(manager: ManagerState, reading: StatusReading): StatusReport {
  const lines = [unitLine(manager)];
  if (!reading.running) {
    lines.push(`service: not running (${reading.reason})`);
    return { lines, running: false };
  }
  const { status } = reading;
  lines.push(`service: running, pid ${status.pid}, lembas ${status.version}, started ${status.startedAt}`);
  if (status.links.length === 0) lines.push("links: none (lembas login URL links this device to an instance)");
  for (const link of status.links) {
    const sessions = link.sessions.length === 0 ? "no sessions" : `${link.sessions.length} session${link.sessions.length === 1 ? "" : "s"}: ${link.sessions.join(", ")}`;
    lines.push(`link ${link.name} (${link.url}): ${link.state} since ${link.since}, ${sessions}`);
  }
  lines.push(terminalsLine(status.terminals));
  return { lines, running: true };
}

function unitLine(manager: ManagerState): string {
  if (!manager.installed) return `unit: not installed (lembas service install puts it at ${manager.unitFile})`;
  const said = manager.problem ? `unknown: ${manager.problem}` : manager.state;
  return `unit: ${manager.unitFile} (${said})`;
}
