/**
 * The shared session's cards at both ends. Each card the terminal's desk opens for the session it
 * shares is also sent to the service over the IPC, as the link's request with
 * `_meta.lembas.patient: true` (a person may answer at either end); the open ones are sent again
 * each time the service takes the share (after a reconnect, a restarted service).
 *
 * The first answer wins. The service's answer (the web's) settles the desk's card, which goes from
 * the screen. It is capped at remote.max_mode like everything the web sends: a plan's approval is
 * lowered to it, and where even manual is beyond it nothing is approved (read as dismissed); an
 * approval of what the cap would not let the web run is a denial (see {@link cappedDecision}). A card settled at the terminal (answered, or
 * let go of by its turn) is told to the service with `_lembas/permission/settled`, which takes the
 * web's cards down. An error from the service is no answer: the card stays the terminal's.
 */
import { Mode } from "../config/schema.ts";
import { questionParams, readPlan, readQuestion } from "../acp/cards.ts";
import { permissionParams, readDecision } from "../acp/permission.ts";
import type { PermissionDecision, PermissionRequest } from "../engine/interaction.ts";
import { cappedMode } from "../engine/mode-cap.ts";
import { modeAction } from "../engine/permissions.ts";
import type { acp } from "../rpc/agent.ts";
import type { PlanOutcome, ToolKind } from "../tools/tool.ts";
import type { Card, CardDesk } from "./cards.ts";

type Target = { connection: acp.AgentConnection; sessionId: string };

export class SharedCards {
  private target: Target | null = null;
  /** The cards sent on the target's connection that are not settled yet. */
  private readonly sent = new Set<string>();

  constructor(
    private readonly desk: CardDesk,
    /** remote.max_mode as config.yaml says it now. */
    private readonly maxMode: () => Mode,
  ) {
    desk.listen((change) => (change.type === "open" ? this.send(change.card) : this.settled(change.callId)));
  }

  /** The service took the share of `sessionId` on `connection`: the session's open cards go to it. */
  start(connection: acp.AgentConnection, sessionId: string): void {
    if (this.target?.connection === connection && this.target.sessionId === sessionId) return;
    this.target = { connection, sessionId };
    this.sent.clear();
    for (const card of this.desk.waiting()) this.send(card);
  }

  /** Cards are no longer sent (the session is not shared, or the connection closed). */
  stop(): void {
    this.target = null;
    this.sent.clear();
  }

  private send(card: Card): void {
    const target = this.target;
    if (!target || card.sessionId !== target.sessionId || this.sent.has(card.callId)) return;
    this.sent.add(card.callId);
    const { method, params } = wire(card);
    target.connection.client.request(method, params).then(
      (result) => {
        // Answered here meanwhile, or sent again on a newer connection: this answer is not the first.
        if (this.target !== target || !this.sent.delete(card.callId)) return;
        answer(card, result, this.maxMode());
      },
      () => {
        // No answer from the web (the connection went, the card was settled here): it stays the terminal's.
      },
    );
  }

  private settled(callId: string): void {
    const target = this.target;
    if (!target || !this.sent.delete(callId)) return;
    void target.connection.client.notify("_lembas/permission/settled", { sessionId: target.sessionId, toolCallId: callId }).catch(() => {});
  }
}

/** The card as the link's request: the spec's params, patient. */
function wire(card: Card): { method: string; params: unknown } {
  if (card.kind === "permission") return { method: "session/request_permission", params: permissionParams(card.request, { patient: true }) };
  if (card.kind === "question") return { method: "_lembas/question", params: questionParams(card.sessionId, card.callId, card.questions, card.why, true) };
  return {
    method: "_lembas/plan",
    params: { sessionId: card.sessionId, toolCallId: card.callId, path: card.path, text: card.text, _meta: { lembas: { patient: true } } },
  };
}

/** Settles the desk's card with the web's answer, read as the link reads it. */
function answer(card: Card, result: unknown, maxMode: Mode): void {
  if (card.kind === "permission") return card.answer(cappedDecision(card.request, readDecision(result), maxMode));
  if (card.kind === "question") return card.answer(readQuestion(result, card.questions));
  card.answer(lowered(readPlan(result), maxMode));
}

/** A plan approved from the web continues in its mode lowered to remote.max_mode; below manual, nothing is approved. */
export function lowered(outcome: PlanOutcome, maxMode: Mode): PlanOutcome {
  if (outcome.outcome !== "approve") return outcome;
  const mode = cappedMode(outcome.mode, maxMode);
  if (mode === "plan") return { outcome: "dismissed" };
  return { outcome: "approve", mode: mode === "manual" ? "manual" : "edit" };
}

/** The kinds of call plan mode runs: they read, and change or run nothing. */
const READING: ReadonlySet<ToolKind> = new Set(["read", "search", "fetch", "think"]);

/**
 * The web's answer to an approval, capped at remote.max_mode: under plan it approves nothing that
 * changes or runs anything; under a cap that asks before commands, a corrected command line (the
 * web's own command, never shown to anyone for approval) is not taken as approved; and a mode is
 * not raised above the cap. What the cap does not allow is a denial, and the model is told why.
 */
export function cappedDecision(request: PermissionRequest, decision: PermissionDecision, maxMode: Mode): PermissionDecision {
  if (decision.outcome === "deny") return decision;
  const why = beyondCap(request, decision, maxMode);
  return why ? { outcome: "deny", feedback: why } : decision;
}

function beyondCap(request: PermissionRequest, decision: PermissionDecision, maxMode: Mode): string | null {
  const limit = `the device's limit for the web (remote.max_mode ${maxMode})`;
  if (request.kind === "switch_mode") {
    const asked = Mode.safeParse((request.rawInput as { mode?: unknown } | null)?.mode);
    if (!asked.success || cappedMode(asked.data, maxMode) !== asked.data) return `the web's approval was not taken: the mode asked for is above ${limit}`;
    return null;
  }
  if (maxMode === "plan" && !READING.has(request.kind)) return `the web's approval was not taken: under ${limit} it approves nothing that changes or runs anything`;
  if (decision.command !== undefined && request.command !== undefined && modeAction(maxMode, "exec") !== "allow") {
    return `the command the web wrote instead was not run: under ${limit} a command runs only as the model wrote it and a person approved it`;
  }
  return null;
}
