/**
 * A login's usage: `GET /v1/usage` with its device token (spec/acp.md, "The HTTP API the CLI
 * uses"). The answer is parsed once here; what does not fit the contract is a failure with a
 * sentence, never a half-read figure. The device token is sent, never said.
 */
import { z } from "zod";
import { errorMessage } from "../errors.ts";
import { answerText, tooLargeWhy } from "./answer-body.ts";

/** How long a usage request may take before it counts as failed. */
export const USAGE_TIMEOUT_MS = 5_000;

/** A JSON number as sent: 1e400 reads as Infinity, which is kept here and shown as nothing. */
const Figure = z.custom<number>((v) => typeof v === "number" && !Number.isNaN(v), { message: "not a number" });
/** An optional field of the later contract: a wrong type reads as not sent, so a credit figure alone still shows. */
const optional = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

const Spend = z.object({
  tokens_in: Figure,
  tokens_out: Figure,
  cost: Figure.nullable(),
  cost_money: optional(Figure.nullable()),
});

const Window = z.object({
  window: z.string(),
  limit: Figure.nullable(),
  spent: Figure.nullable(),
  frees_at: z.string().nullable().catch(null),
});

export const Usage = z.object({
  plan: z.object({ name: z.string(), credits_per_month: Figure.nullable() }).nullable(),
  balance: Figure.nullable(),
  month: Spend.extend({ from: z.string() }),
  device: Spend,
  unit: z.string(),
  currency: optional(z.string()),
  credit_value: optional(Figure.nullable()),
  admin: optional(z.boolean()),
  balance_money: optional(Figure.nullable()),
  windows: optional(z.array(Window)),
});
export type Usage = z.infer<typeof Usage>;
export type UsageWindow = z.infer<typeof Window>;

/** What asking came to: the usage, an instance without the endpoint, or why it could not be had. */
export type UsageReading = { kind: "usage"; usage: Usage } | { kind: "absent" } | { kind: "failed"; why: string };

export type UsageLogin = { url: string; token: string };

export type UsageOptions = { timeoutMs?: number; fetch?: typeof fetch };

/** Asks the login's instance for its usage; never throws. */
export async function fetchUsage(login: UsageLogin, opts: UsageOptions = {}): Promise<UsageReading> {
  const timeoutMs = opts.timeoutMs ?? USAGE_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await (opts.fetch ?? fetch)(`${login.url.replace(/\/+$/, "")}/v1/usage`, {
      headers: { authorization: `Bearer ${login.token}`, accept: "application/json" },
      signal,
    });
  } catch (error) {
    if (signal.aborted) return { kind: "failed", why: `it did not answer within ${seconds(timeoutMs)}` };
    return { kind: "failed", why: `it could not be reached: ${errorMessage(error)}` };
  }
  if (!response.ok) {
    // The body is not read: let go of the connection (the status bar asks once a minute).
    await response.body?.cancel().catch(() => {});
    if (response.status === 404) return { kind: "absent" };
    if (response.status === 401 || response.status === 403) return { kind: "failed", why: `it refused the device token (${response.status}): log in again` };
    return { kind: "failed", why: `it answered ${response.status}` };
  }
  let body: unknown;
  try {
    const answer = await answerText(response);
    if ("tooLarge" in answer) return { kind: "failed", why: tooLargeWhy() };
    body = JSON.parse(answer.text);
  } catch {
    if (signal.aborted) return { kind: "failed", why: `it did not answer within ${seconds(timeoutMs)}` };
    return { kind: "failed", why: "its answer is not JSON" };
  }
  const parsed = Usage.safeParse(body);
  if (!parsed.success) return { kind: "failed", why: `its answer does not read as usage (${firstIssue(parsed.error)})` };
  return { kind: "usage", usage: parsed.data };
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "no detail";
  const path = issue.path.join(".");
  return path ? `${path}: ${issue.message}` : issue.message;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
