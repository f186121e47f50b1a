import { hostname } from "node:os";
import type { Config } from "../config/schema.ts";
import { HARNESS_SPEC, VERSION } from "../version.ts";

/** _lembas/hello's params: sent once when the link opens, before initialize. */
export function helloParams(protocol: number, config: Config) {
  return {
    protocol,
    version: VERSION,
    harness_spec: HARNESS_SPEC,
    device: { host: hostname(), platform: process.platform },
    limits: { roots: config.remote.roots, max_mode: config.remote.max_mode, require_trust: config.remote.require_trust },
  };
}

/** wss://<host>/api/devices/link for an https instance, ws:// for an http one. */
export function linkUrl(instanceUrl: string): string {
  const url = new URL(instanceUrl);
  url.protocol = url.protocol === "http:" ? "ws:" : "wss:";
  url.pathname = "/api/devices/link";
  return url.toString();
}
