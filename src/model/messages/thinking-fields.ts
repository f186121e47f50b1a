/**
 * A connection's `body` fields that a Messages request with thinking on cannot take
 * (docs.anthropic.com/en/docs/build-with-claude/extended-thinking, "Feature compatibility"):
 * `temperature` other than 1, `top_k` at all, `top_p` below 0.95. A body copied from a chat
 * connection often sets them; sent beside `thinking`, every request would be refused.
 *
 * They are dropped from the requests that think and kept in those that do not, rather than the
 * config refused at load: the effort changes per session and per prompt (--effort, /effort), so
 * the same body is right with effort off and wrong with it on, and the person who asked for an
 * effort asked for thinking. `lembas doctor` names the fields left out (app/doctor.ts).
 */
export function thinkingConflicts(body: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  if (body.temperature !== undefined && body.temperature !== 1) out.push("temperature");
  if (body.top_k !== undefined) out.push("top_k");
  if (body.top_p !== undefined && !(typeof body.top_p === "number" && body.top_p >= 0.95)) out.push("top_p");
  return out;
}

/** The body without the fields a thinking request cannot take. */
export function withoutThinkingConflicts(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const drop = new Set(thinkingConflicts(body));
  return Object.fromEntries(Object.entries(body).filter(([key]) => !drop.has(key)));
}
