import { PLAN_NEXT } from "../engine/permissions.ts";

/** A refused call's stored result ("Refused: REASON.", tool-runner.ts): its reason; null for any other result. */
export function refusedReason(tool: { output?: string; isError?: boolean }): string | null {
  if (!tool.isError) return null;
  const reason = /^Refused: ([\s\S]*?)\.?$/.exec(tool.output ?? "")?.[1];
  return reason ?? null;
}

/**
 * A refusal's reason as the person reads it: plan mode's direction to the model ("submit a plan
 * with plan_submit") said as what happens next and what they can do about it.
 */
export function reasonForPerson(reason: string): string {
  if (!reason.endsWith(PLAN_NEXT)) return reason;
  return `${reason.slice(0, -PLAN_NEXT.length)}; the model plans first (Shift+Tab changes the mode)`;
}
