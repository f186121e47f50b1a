import { terminalLine, terminalText } from "../controls.ts";
import { counted } from "../plural.ts";
import type { McpListing } from "./listing.ts";

/** What starting a server found (the MCP client says it): its tools, or why it did not start. */
export type ServerInspection = { starts: true; tools: string[] } | { starts: false; error: string };

/**
 * `lembas mcp list`'s lines: each server with its source, its command or url and its state. The
 * seam for the client: given `inspected` (a server's name → what starting it found), each line
 * also says whether it starts and its tools; without it, only what the configuration says.
 */
export function mcpListText(listing: McpListing, inspected?: ReadonlyMap<string, ServerInspection>): string[] {
  const lines: string[] = [];
  const { servers, project } = listing;
  if (project.state === "untrusted") lines.push("the project's .mcp.json is ignored: the project is not trusted (lembas trust, then lembas mcp list again)");
  if (servers.length === 0 && lines.length === 0) lines.push("no MCP servers: add one to config.yaml (lembas config set mcp.NAME.command …) or a project's .mcp.json");
  const nameWidth = Math.max(0, ...servers.map((s) => s.name.length));
  const sourceWidth = Math.max(0, ...servers.map((s) => s.source.length));
  for (const server of servers) {
    const head = terminalLine(`${server.name.padEnd(nameWidth)}  ${server.source.padEnd(sourceWidth)}  ${server.what}`);
    const state = server.note === null ? null : terminalText(server.note);
    const found = server.spec ? inspected?.get(server.name) : undefined;
    // What a server says of itself (its tools' names, its stderr) is shown as text, never acted on by the terminal.
    const tools = found?.starts ? found.tools.map(terminalLine) : [];
    const started = found ? (found.starts ? `${startsWith(tools.length)}${tools.length > 0 ? `: ${tools.join(", ")}` : ""}` : terminalText(found.error)) : null;
    lines.push([head, state, started].filter((part) => part !== null).join("  — "));
  }
  for (const problem of listing.problems) lines.push(terminalText(`! ${problem.name}: ${problem.problem}`));
  return lines;
}

/** A server that started, and how many tools it has ("starts, 1 tool"): `lembas mcp list`'s words and /doctor's. */
export function startsWith(tools: number): string {
  return `starts, ${counted(tools, "tool")}`;
}
