/**
 * A login's personalization at its instance: `GET /v1/me/personalization` and the partial `PUT`
 * (spec/acp.md, "The HTTP API the CLI uses"), with its device token, 5 s each. An answer that does
 * not fit the contract is a failure with a sentence, never half used.
 */
import { z } from "zod";
import { errorMessage } from "../errors.ts";
import { Personalization } from "../store/personalization.ts";
import { answerText, tooLargeWhy } from "./answer-body.ts";

export const PERSONALIZATION_TIMEOUT_MS = 5_000;


/** The three fields a person changes; a PUT sends one of them, with `enabled: true`. */
export const PERSONAL_FIELDS = ["personality", "personality_custom", "instructions"] as const;
export type PersonalField = (typeof PERSONAL_FIELDS)[number];

export function isPersonalField(key: string): key is PersonalField {
  return (PERSONAL_FIELDS as readonly string[]).includes(key);
}

/**
 * What asking came to: the settings; an instance without the endpoint (404); one that refuses it
 * (403: not available to this account, or not to this token: `why` is its detail); or why it could not be had.
 */
export type PersonalizationReading =
  | { kind: "personalization"; value: Personalization }
  | { kind: "absent" }
  | { kind: "refused"; why: string }
  | { kind: "failed"; why: string };

/** What a PUT came to: the instance's answer (when it sent one that parses), or why nothing changed. */
export type PersonalizationWrite = { ok: true; value: Personalization | null } | { ok: false; why: string };

export type PersonalizationLogin = { url: string; token: string };
/** `signal`: given up with it too (a one-shot lembas run ending does not wait on a read). */
export type PersonalizationOptions = { timeoutMs?: number; fetch?: typeof fetch; signal?: AbortSignal };

type Answer = { response: Response; body: unknown } | { failed: string };

async function ask(login: PersonalizationLogin, init: RequestInit, opts: PersonalizationOptions): Promise<Answer> {
  const timeoutMs = opts.timeoutMs ?? PERSONALIZATION_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
  const late = `it did not answer within ${timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`}`;
  let response: Response;
  let text: string;
  try {
    response = await (opts.fetch ?? fetch)(`${login.url.replace(/\/+$/, "")}/v1/me/personalization`, {
      ...init,
      headers: { authorization: `Bearer ${login.token}`, accept: "application/json", ...(init.body ? { "content-type": "application/json" } : {}) },
      signal,
    });
    const answer = await answerText(response);
    if ("tooLarge" in answer) return { failed: tooLargeWhy() };
    text = answer.text;
  } catch (error) {
    if (opts.signal?.aborted) return { failed: "lembas stopped before it answered" };
    return { failed: timeout.aborted ? late : `it could not be reached: ${errorMessage(error)}` };
  }
  try {
    return { response, body: text ? JSON.parse(text) : null };
  } catch {
    return { response, body: undefined };
  }
}

/** Asks the login's instance for its personalization; never throws. */
export async function fetchPersonalization(login: PersonalizationLogin, opts: PersonalizationOptions = {}): Promise<PersonalizationReading> {
  const answer = await ask(login, { method: "GET" }, opts);
  if ("failed" in answer) return { kind: "failed", why: answer.failed };
  const { response, body } = answer;
  if (response.status === 404) return { kind: "absent" };
  if (response.status === 401) return { kind: "failed", why: "it refused the device token (401): log in again" };
  if (response.status === 403) return { kind: "refused", why: detailOf(body) ?? "not allowed" };
  if (!response.ok) return { kind: "failed", why: `it answered ${response.status}` };
  if (body === undefined) return { kind: "failed", why: "its answer is not JSON" };
  const parsed = Personalization.safeParse(body);
  if (!parsed.success) return { kind: "failed", why: `its answer does not read as personalization (${firstIssue(parsed.error)})` };
  return { kind: "personalization", value: parsed.data };
}

/** The PUT of one changed field and `enabled: true`, never the other two: the instance keeps what it has. */
export function personalizationBody(field: PersonalField, value: string): Record<string, unknown> {
  return { enabled: true, [field]: value };
}

/** Writes one field back; never throws. 403 says the answer's detail (else "not allowed"); 422 which field was refused. */
export async function putPersonalization(login: PersonalizationLogin, field: PersonalField, value: string, opts: PersonalizationOptions = {}): Promise<PersonalizationWrite> {
  const answer = await ask(login, { method: "PUT", body: JSON.stringify(personalizationBody(field, value)) }, opts);
  if ("failed" in answer) return { ok: false, why: answer.failed };
  const { response, body } = answer;
  if (response.status === 403) return { ok: false, why: detailOf(body) ?? "not allowed" };
  if (response.status === 422) return { ok: false, why: `the instance refused ${refusedField(body) ?? field}` };
  if (response.status === 401) return { ok: false, why: "the instance refused the device token (401): log in again" };
  if (!response.ok) return { ok: false, why: `the instance answered ${response.status}` };
  const parsed = Personalization.safeParse(body);
  return { ok: true, value: parsed.success ? parsed.data : null };
}

/** FastAPI's `detail`: a sentence, or a list of `{ msg }`. */
function detailOf(body: unknown): string | null {
  const detail = z.object({ detail: z.unknown() }).safeParse(body).data?.detail;
  if (typeof detail === "string" && detail.trim()) return detail.trim();
  const list = z.array(z.object({ msg: z.string() })).safeParse(detail).data;
  return list && list.length > 0 ? list.map((item) => item.msg).join("; ") : null;
}

/** The field a 422 names: FastAPI's `detail[].loc` ends with it ("body", "instructions"). */
function refusedField(body: unknown): string | null {
  const detail = z.object({ detail: z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])) })) }).safeParse(body).data?.detail;
  const names = (detail ?? []).map((item) => item.loc.at(-1)).filter((name): name is string => typeof name === "string");
  return names.length > 0 ? [...new Set(names)].join(", ") : null;
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "no detail";
  const path = issue.path.join(".");
  return path ? `${path}: ${issue.message}` : issue.message;
}
