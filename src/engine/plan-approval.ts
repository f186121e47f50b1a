import type { Mode } from "../config/schema.ts";
import type { PlanOutcome } from "../tools/tool.ts";
import { type Interaction, nobody } from "./interaction.ts";
import { cappedMode } from "./mode-cap.ts";

/** The session a plan is put to: who answers for the person there, its cap and the running turn's. */
export type PlanHost = {
  readonly id: string;
  readonly interaction: Interaction | null;
  readonly maxMode: Mode;
  readonly turnCap: Mode | null;
  setMode(requested: Mode): Mode;
};

/**
 * Puts a plan the model wrote (plan_submit) to whoever answers for the person. Approved, the session
 * leaves plan mode for the mode chosen, lowered to its cap and to the turn's (a web prompt's in a
 * terminal's session: remote.max_mode), whoever approves it; a mode lowered to plan approves nothing.
 */
export async function approvePlan(session: PlanHost, plan: { callId: string; path: string; text: string }, signal: AbortSignal): Promise<PlanOutcome> {
  const outcome = await (session.interaction ?? nobody("")).plan({ sessionId: session.id, ...plan }, signal);
  if (outcome.outcome !== "approve") return outcome;
  const mode = cappedMode(outcome.mode, session.maxMode, session.turnCap);
  if (mode === "plan") return { outcome: "dismissed" };
  session.setMode(mode);
  return { outcome: "approve", mode: mode === "auto" ? "edit" : mode };
}
