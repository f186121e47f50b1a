/**
 * What sharing needs of the ACP agent (the acp/ handlers and the dispatcher under them), loaded by
 * share.ts with the first connection to a service: a terminal no service runs for never loads it.
 */
export { registerLembasMethods } from "../acp/lembas.ts";
export { processLocator } from "../acp/whereabouts.ts";
export { sendCommands } from "../acp/prompt.ts";
export { serveAcp } from "../acp/server.ts";
