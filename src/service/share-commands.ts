/**
 * The `available_commands_update` a shared session's announce is followed by: the command set of
 * the session's project as this device reads it (the service and the terminal read the same files),
 * so a link that comes up, or a service just restarted, hears it without asking the terminal.
 */
import { availableCommands, loadCommands } from "../project/commands.ts";
import type { AnyMessage } from "../rpc/stream.ts";

/** The session/update notification listing a session's commands, or null when they cannot be read. */
export function commandsNotification(sessionId: string, root: string, configDir: string): AnyMessage | null {
  try {
    const set = loadCommands({ root, configDir });
    const update = { sessionUpdate: "available_commands_update", availableCommands: availableCommands(set) };
    return { jsonrpc: "2.0", method: "session/update", params: { sessionId, update } } as AnyMessage;
  } catch {
    // the announce still goes; the terminal relays the set with its next change
    return null;
  }
}
