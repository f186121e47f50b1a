import { z } from "zod";
import { lazily } from "../lazy.ts";

/** Who is on the other side: LLeMbas (and which protocol it speaks), or a plain ACP client. */
export type ClientInfo = { lembas: boolean; protocol: number };

const LembasMeta = lazily(() => z.union([z.literal(true), z.looseObject({ protocol: z.number().int().positive().optional() })]));

/**
 * A client is LLeMbas when clientCapabilities._meta.lembas is present; its protocol is
 * _meta.lembas.protocol (absent, or `true`: 1). Anything else is a plain ACP client.
 */
export function detectClient(clientCapabilities: unknown): ClientInfo {
  const meta = (clientCapabilities as { _meta?: { lembas?: unknown } } | null | undefined)?._meta?.lembas;
  if (meta === undefined || meta === null || meta === false) return { lembas: false, protocol: 0 };
  const parsed = LembasMeta().safeParse(meta);
  if (!parsed.success) return { lembas: true, protocol: 1 };
  return { lembas: true, protocol: parsed.data === true ? 1 : (parsed.data.protocol ?? 1) };
}
