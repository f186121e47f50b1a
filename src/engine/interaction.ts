import type { FileDiff, PlanOutcome, Question, QuestionOutcome, ToolKind } from "../tools/tool.ts";

/**
 * An approval the engine needs from a person before a tool call runs. Whoever shows it shows what
 * will run or change first (command and cwd, diffs); the model's description only beside it.
 */
export type PermissionRequest = {
  sessionId: string;
  callId: string;
  toolName: string;
  title: string;
  kind: ToolKind;
  rawInput: unknown;
  /** The exact command line a command tool would run, and the directory it runs in. */
  command?: { line: string; cwd: string };
  /** The model's own words for the call (bash's description): never shown instead of the command. */
  description?: string;
  /** The files the call would change, before and after, computed before it runs. */
  diffs?: FileDiff[];
  /** Why it asks: "edit mode asks before running commands", "/etc/hosts is outside the project". */
  reason: string;
  /** What "allow for this session" would allow; null: never offered. */
  always: string | null;
  /** The rules a yes (or a no) can be kept as beyond the session, for the project or everywhere; absent: the session's alone. */
  keep?: string[];
};

/** How long a rule kept from a card lasts, and where. */
export type KeepChoice = { scope: "project" | "everywhere"; expires: "day" | "week" | "never" };

export type PermissionDecision = {
  outcome: "once" | "session" | "deny";
  /** With "session" or "deny": also keep the card's rules (PermissionRequest.keep) for the project or everywhere. */
  keep?: KeepChoice;
  /** With "deny": refuse for the rest of the session what "allow for this session" (PermissionRequest.always) would have allowed. */
  forSession?: true;
  /** A corrected command line, run once instead of the model's. */
  command?: string;
  /** Why it was denied, given to the model: the person's words, or why nobody could answer. */
  feedback?: string;
  /** Nobody answered (no one to ask, the turn ended, the time ran out): refused, not the person's denial. */
  unanswered?: true;
  /** A yes given ahead for every request (`lembas run --yes`), not by a person who saw it: it holds for this run and is never kept. */
  unattended?: true;
};

/**
 * Whoever can answer for a person: the ACP client, the link's web UI, the terminal. The engine
 * emits a request and awaits it; with no interaction attached, nobody can be asked.
 */
export type Interaction = {
  permission(request: PermissionRequest, signal: AbortSignal): Promise<PermissionDecision>;
  question(request: { sessionId: string; callId: string; questions: Question[]; why?: string }, signal: AbortSignal): Promise<QuestionOutcome>;
  plan(request: { sessionId: string; callId: string; path: string; text: string }, signal: AbortSignal): Promise<PlanOutcome>;
};

/** Nobody there: approvals are denied with this reason, questions and plans answer "nobody". */
export function nobody(reason: string): Interaction {
  return {
    permission: async () => ({ outcome: "deny", feedback: reason, unanswered: true }),
    question: async () => ({ outcome: "nobody" }),
    plan: async () => ({ outcome: "nobody" }),
  };
}

/**
 * Approves every request once (`lembas run --yes`), for this run only (a project's .mcp.json is
 * not approved for good); questions and plans still have nobody to answer.
 */
export function approveAll(): Interaction {
  return {
    permission: async () => ({ outcome: "once", unattended: true }),
    question: async () => ({ outcome: "nobody" }),
    plan: async () => ({ outcome: "nobody" }),
  };
}
