import { z } from "zod";
import { UserError } from "../errors.ts";
import { isAbort, networkReason } from "../model/errors.ts";

/** The link protocols this CLI can speak with an instance. */
export const SPOKEN_PROTOCOLS = [1, 2] as const;

const Discovery = z.looseObject({
  name: z.string().optional(),
  protocol: z.number().int().positive().optional(),
  protocols: z.array(z.number().int().positive()).optional(),
});

export type Discovered = { name: string | null; protocols: number[] };

/** An instance URL as lembas keeps it: http(s), no path, no trailing slash. */
export function normalizeUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(/^[a-z]+:\/\//i.test(input) ? input : `https://${input}`);
  } catch {
    throw new UserError(`${input} is not a URL (say https://your-instance.example)`, 2);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new UserError(`${input}: an instance URL starts with https:// (or http://)`, 2);
  return `${url.protocol}//${url.host}`;
}

/**
 * Reads /.well-known/lembas.json: `protocols`, falling back to `protocol` where it is absent.
 * Refuses an instance that speaks none of the protocols this CLI knows.
 */
export async function discover(url: string, signal?: AbortSignal): Promise<Discovered> {
  let response: Response;
  try {
    response = await fetch(`${url}/.well-known/lembas.json`, { signal: signal ?? AbortSignal.timeout(10_000), redirect: "follow" });
  } catch (error) {
    throw new UserError(`could not reach ${url}: ${isAbort(error) ? "it did not answer in time" : networkReason(error)}`, 1);
  }
  if (!response.ok) throw new UserError(`${url} is not a LLeMbas instance (/.well-known/lembas.json answered ${response.status})`, 1);
  const parsed = Discovery.safeParse(await response.json().catch(() => null));
  if (!parsed.success) throw new UserError(`${url} is not a LLeMbas instance (its /.well-known/lembas.json is not what lembas expects)`, 1);
  const protocols = parsed.data.protocols ?? (parsed.data.protocol !== undefined ? [parsed.data.protocol] : []);
  if (!protocols.some((p) => (SPOKEN_PROTOCOLS as readonly number[]).includes(p))) {
    throw new UserError(
      `${url} speaks link protocol ${protocols.join(", ") || "(none)"}, and this lembas speaks ${SPOKEN_PROTOCOLS.join(" and ")}: update one of them`,
      1,
    );
  }
  return { name: parsed.data.name ?? null, protocols };
}

/** The protocol to say in hello and initialize: 2 only to an instance that lists 2. */
export function protocolFor(protocols: readonly number[]): number {
  return protocols.includes(2) ? 2 : 1;
}
