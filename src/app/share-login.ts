/**
 * Which login (instance) a request the service forwards to a terminal came from. A terminal
 * serves its shared session to every link at once over one IPC connection, so the link's login,
 * which the service's own handlers have as their connection, travels with each request instead:
 * `_meta.lembas.login`, always set by the service's router (a client's own value is replaced), and
 * read by the terminal where the service uses its connection (tui/share-requests.ts).
 */
import { z } from "zod";

const LoginMeta = z.looseObject({ _meta: z.looseObject({ lembas: z.looseObject({ login: z.string().min(1) }) }) });

/** The params with the link's login in `_meta.lembas.login` (what was there before replaced). */
export function withLogin(params: unknown, login: string): Record<string, unknown> {
  const base = typeof params === "object" && params !== null && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
  const meta = isRecord(base._meta) ? base._meta : {};
  const lembas = isRecord(meta.lembas) ? meta.lembas : {};
  return { ...base, _meta: { ...meta, lembas: { ...lembas, login } } };
}

/** The login a forwarded request came from, or null when it says none. */
export function loginOf(params: unknown): string | null {
  const parsed = LoginMeta.safeParse(params);
  return parsed.success ? parsed.data._meta.lembas.login : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
