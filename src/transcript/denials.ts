import { PLAN_NEXT } from "../engine/permissions.ts";

/**
 * engine/approval.ts (its wording of a denial) builds its schemas with zod: it is loaded when a
 * denial is read, not with the transcript, whose resumed history is drawn before zod is loaded.
 */
const approval = () => require("../engine/approval.ts") as typeof import("../engine/approval.ts");

/** A denied or refused call: the rule's reason, or DENIED_BY_YOU; the person's words (or why nobody answered). */
export type Denial = { reason: string; feedback?: string | undefined };

/**
 * A stored result that did not run because it was refused ("Refused: REASON.", tool-runner.ts) or
 * the person denied it; null for any other result.
 */
export function storedDenial(tool: { output?: string; isError?: boolean }): Denial | null {
  if (!tool.isError) return null;
  const output = tool.output ?? "";
  const { DENIED_BY_YOU, personDenial } = approval();
  const person = personDenial(output);
  if (person) return { reason: DENIED_BY_YOU, ...person };
  const reason = /^Refused: ([\s\S]*?)\.?$/.exec(output)?.[1];
  return reason === undefined ? null : { reason };
}

/**
 * A denial as the person reads it: "denied by you: “use pnpm”" for their own No, "refused: …" for
 * a rule's, with plan mode's direction to the model said as what they can do about it.
 */
export function denialText(denial: Denial): string {
  const { DENIED_BY_YOU } = approval();
  if (denial.reason === DENIED_BY_YOU) return denial.feedback ? `${DENIED_BY_YOU}: “${denial.feedback}”` : DENIED_BY_YOU;
  return `refused: ${reasonForPerson(denial.reason)}${denial.feedback ? ` (${denial.feedback})` : ""}`;
}

/** How a stored call that did not run ended, in a word or two: "denied by you" or "refused". */
export function denialWord(denial: Denial): string {
  const { DENIED_BY_YOU } = approval();
  return denial.reason === DENIED_BY_YOU ? DENIED_BY_YOU : "refused";
}

/**
 * A refusal's reason as the person reads it: plan mode's direction to the model ("submit a plan
 * with plan_submit") said as what happens next and what they can do about it.
 */
function reasonForPerson(reason: string): string {
  if (!reason.endsWith(PLAN_NEXT)) return reason;
  return `${reason.slice(0, -PLAN_NEXT.length)}; the model plans first (Shift+Tab changes the mode)`;
}
