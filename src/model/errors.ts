import { z } from "zod";
import { lazily } from "../lazy.ts";
import type { Endpoint } from "./endpoint.ts";
import { saysContextOverflow } from "./overflow.ts";
import { describeWait } from "./retry.ts";

/** What went wrong, as the engine tells failures apart (retry, show, re-login, compact…). */
export const MODEL_ERROR_KINDS = ["unreachable", "auth", "rate_limit", "server", "bad_request", "context_overflow", "cut", "timeout", "malformed", "aborted"] as const;
export type ModelErrorKind = (typeof MODEL_ERROR_KINDS)[number];

/**
 * A failed model request, with a sentence a person can act on as its message.
 * The message never holds the endpoint's key: {@link modelError} takes it out.
 */
export class ModelError extends Error {
  override readonly name = "ModelError";
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    /** The HTTP status, when the server answered with one. */
    readonly status?: number,
  ) {
    super(message);
  }

  /**
   * Whether trying again may help, if nothing of the reply was shown yet (client.ts): after a
   * token, a cut or silent stream ends the reply with what it said instead.
   */
  get retryable(): boolean {
    const k = this.kind;
    return k === "unreachable" || k === "rate_limit" || k === "server" || k === "cut" || k === "timeout";
  }
}

/** A value or the error that kept it from being had. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ModelError };

/** Builds a ModelError whose sentence cannot leak the endpoint's key, even if a server echoed it. */
export function modelError(endpoint: Endpoint, kind: ModelErrorKind, sentence: string, status?: number): ModelError {
  return new ModelError(kind, redact(sentence, endpoint.apiKey), status);
}

/** The base URL as it may be shown: no credentials, query or fragment. */
export function displayUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname}`.replace(/\/+$/, "");
  } catch {
    return "(an invalid URL)";
  }
}

function redact(text: string, secret: string | null): string {
  if (!secret || secret.length < 4) return text;
  return text.split(secret).join("[key]");
}

/** The error for a request that never got an HTTP answer (fetch threw). */
export function networkError(endpoint: Endpoint, cause: unknown, signal?: AbortSignal): ModelError {
  if (signal?.aborted || isAbort(cause)) return abortedError(endpoint);
  return modelError(endpoint, "unreachable", `the model server at ${displayUrl(endpoint.baseUrl)} did not answer: ${networkReason(cause)}`);
}

/** The error for a reply that broke after it started. */
export function cutError(endpoint: Endpoint, reason: string): ModelError {
  return modelError(endpoint, "cut", `the model server at ${displayUrl(endpoint.baseUrl)} stopped mid-reply: ${reason}`);
}

/**
 * The error for a server that fell silent (idle.ts) for `afterMs`, before its reply began or in
 * the middle of it; `hint` says how to wait longer.
 */
export function silenceError(endpoint: Endpoint, afterMs: number, midReply: boolean, hint: string | undefined): ModelError {
  const when = midReply ? "mid-reply" : "before its reply began";
  const end = hint ? `; ${hint}` : "";
  return modelError(endpoint, "timeout", `the model server at ${displayUrl(endpoint.baseUrl)} went silent for ${describeWait(afterMs)} ${when}${end}`);
}

/** The error for a request stopped by its AbortSignal. */
export function abortedError(endpoint: Endpoint): ModelError {
  return modelError(endpoint, "aborted", `the request to the model server at ${displayUrl(endpoint.baseUrl)} was stopped`);
}

/** Whether a thrown value is an abort (or a timeout signal's abort). */
export function isAbort(cause: unknown): boolean {
  return cause instanceof Error && (cause.name === "AbortError" || cause.name === "TimeoutError");
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ConnectionRefused: "connection refused",
  ENOTFOUND: "the host name is not known",
  EAI_AGAIN: "the host name could not be looked up",
  ECONNRESET: "the connection was reset",
  ConnectionClosed: "the connection was closed",
  ETIMEDOUT: "the connection timed out",
  EHOSTUNREACH: "the host is unreachable",
  ENETUNREACH: "the network is unreachable",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "its TLS certificate could not be verified",
  DEPTH_ZERO_SELF_SIGNED_CERT: "its TLS certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "its TLS certificate chain is self-signed",
  CERT_HAS_EXPIRED: "its TLS certificate has expired",
  ERR_TLS_CERT_ALTNAME_INVALID: "its TLS certificate is for another host name",
};

/** A few words on why a connection failed, from the error's code where there is one. */
export function networkReason(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const code = "code" in cause && typeof cause.code === "string" ? cause.code : undefined;
  const known = code === undefined ? undefined : NETWORK_REASONS[code];
  if (known) return known;
  return code ? `${cause.message} (${code})` : cause.message;
}

const errorBody = lazily(() =>
  z.union([
    z.object({ error: z.object({ message: z.string() }) }).transform((b) => b.error.message),
    z.object({ error: z.string() }).transform((b) => b.error),
    z.object({ detail: z.string() }).transform((b) => b.detail),
    z.object({ message: z.string() }).transform((b) => b.message),
  ]),
);

/** The server's own words from an error body: its JSON message, else the text, on one short line. */
export function serverMessage(body: string): string {
  let text = body;
  try {
    const parsed = errorBody().safeParse(JSON.parse(body));
    if (parsed.success) text = parsed.data;
  } catch {
    // not JSON: the raw text is the message
  }
  return oneLine(text, 300);
}

/** `text` on one line, cut to `max` characters. */
export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The error for a non-2xx answer; `body` is the (bounded) response text. */
export function httpError(endpoint: Endpoint, status: number, body: string, model?: string): ModelError {
  const at = `the model server at ${displayUrl(endpoint.baseUrl)}`;
  const said = serverMessage(body);
  const detail = said ? `HTTP ${status}: ${said}` : `HTTP ${status}`;
  if (status === 401 || status === 403) {
    const what = endpoint.apiKey === null ? "asks for a key" : "refused the key";
    const hint = endpoint.authHint ?? `check the key of "${endpoint.name}"`;
    return modelError(endpoint, "auth", `${at} ${what} (${detail}); ${hint}`, status);
  }
  if (status === 429) return modelError(endpoint, "rate_limit", `${at} is limiting requests (${detail})`, status);
  // The code (OpenAI's context_length_exceeded) is beside the message: the body is read too. Some
  // servers (older llama.cpp) say it with a 500: trying again would only fail the same way.
  if (saysContextOverflow(said) || saysContextOverflow(body.slice(0, 4096))) return overflowError(endpoint, detail, status);
  if (status >= 500) return modelError(endpoint, "server", `${at} failed (${detail})`, status);
  if (status === 404) {
    const which = model === undefined ? "" : ` and that it serves "${model}"`;
    return modelError(endpoint, "bad_request", `${at} answered ${detail}; check that the base URL ends in /v1${which}`, status);
  }
  return modelError(endpoint, "bad_request", `${at} rejected the request (${detail})`, status);
}

/** The error for a request longer than the model's context window, in the server's words. */
export function overflowError(endpoint: Endpoint, detail: string, status?: number): ModelError {
  return modelError(endpoint, "context_overflow", `the conversation is too long for the model at ${displayUrl(endpoint.baseUrl)} (${detail})`, status);
}

/** Reads at most `max` bytes of a body as text, so an endless error page cannot fill memory. */
export async function readBounded(response: Response, max = 64 * 1024): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  try {
    while (bytes < max) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // a body that breaks while we read an error is still the error we have
  } finally {
    reader.cancel().catch(() => {});
  }
  return text.slice(0, max);
}
