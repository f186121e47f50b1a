import { escapeControls } from "../controls.ts";
import type { PermissionRequest } from "../engine/interaction.ts";
import { APPROVAL_TOOL } from "../engine/session-mcp.ts";

/**
 * A call's arguments as an approval shows them, whole, where nothing else shows what the call does
 * (an MCP tool's, a fetch's): indented JSON, its control characters written out (`\u202e`); null
 * where a command or a diff says it, or where there are none.
 */
export function shownArguments(request: PermissionRequest): string | null {
  if (request.command || (request.diffs?.length ?? 0) > 0 || request.toolName === APPROVAL_TOOL) return null;
  const input = request.rawInput;
  if (input === undefined || input === null || (typeof input === "object" && Object.keys(input).length === 0)) return null;
  return escapeControls(JSON.stringify(input, null, 2) ?? String(input));
}
