/**
 * Anthropic's Messages API for the scripted model: `POST /v1/messages` replays recorded streams
 * (test/model/fixtures/messages/*.ts, each citing where its shape is documented) and records what
 * lembas sent. Mount it with `startModel({ routes: [messagesRoute(...)] })`. A body breaking one of
 * the API's rules the route can check gets the API's 400 (messagesRule).
 */
import { FixtureRoute, type RecordedBody, type Replay } from "./fixture-route.ts";

/** The error body Messages answers a failed request with (docs.anthropic.com/en/api/errors). */
export function messagesError(type: string, message: string): string {
  return JSON.stringify({ type: "error", error: { type, message } });
}

/** A Messages route replaying `replays` in order, then `fallback` (none: a 500 that says nothing is scripted). */
export function messagesRoute(replays: Replay[], fallback: Replay | null = null): FixtureRoute {
  return new FixtureRoute("/messages", replays, fallback, refusal);
}

function refusal(body: RecordedBody): Response | null {
  const broken = messagesRule(body);
  return broken ? new Response(messagesError("invalid_request_error", broken), { status: 400, headers: { "content-type": "application/json" } }) : null;
}

type Message = { role?: unknown; content?: unknown };
type Block = { type?: unknown };

/**
 * The rule the real API enforces on thinking in a tool loop (docs.anthropic.com/en/docs/build-with-claude/extended-thinking,
 * "Preserving thinking blocks"): with `thinking` enabled, the final assistant message, when it
 * holds tool_use, starts with a thinking or redacted_thinking block. Null: the body keeps it; else
 * the API's own sentence. Also: temperature, top_k only at their defaults with thinking, and
 * budget_tokens below max_tokens ("Feature compatibility", "Max tokens and context window size").
 */
export function messagesRule(body: RecordedBody): string | null {
  const thinking = body.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
  if (thinking?.type !== "enabled") return null;
  if (body.temperature !== undefined && body.temperature !== 1) return "`temperature` may only be set to 1 when thinking is enabled.";
  if (body.top_k !== undefined) return "`top_k` is not supported when thinking is enabled.";
  if (typeof body.top_p === "number" && body.top_p < 0.95) return "`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled.";
  if (typeof thinking.budget_tokens === "number" && typeof body.max_tokens === "number" && thinking.budget_tokens >= body.max_tokens) {
    return "`max_tokens` must be greater than `thinking.budget_tokens`.";
  }
  const messages = Array.isArray(body.messages) ? (body.messages as Message[]) : [];
  const index = messages.findLastIndex((m) => m.role === "assistant");
  const content = Array.isArray(messages[index]?.content) ? (messages[index]?.content as Block[]) : [];
  if (!content.some((b) => b.type === "tool_use")) return null;
  const first = content[0]?.type;
  if (first === "thinking" || first === "redacted_thinking") return null;
  return `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`.`;
}
