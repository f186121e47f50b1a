/**
 * ACP as this program speaks it: the protocol's types from the ACP SDK (types only: its module is
 * never loaded), and our own runtime of it — the apps, their contexts and RequestError.
 */
export type * from "@agentclientprotocol/sdk";
export { RequestError } from "./request-error.ts";
export { agent, AgentApp, AgentContext, client, ClientApp, ClientContext } from "./apps.ts";
export type { AgentConnection, ClientConnection, ParamsParser } from "./apps.ts";
