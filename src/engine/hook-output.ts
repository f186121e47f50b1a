import { z } from "zod";
import type { HookEvent } from "../config/schema.ts";
import type { HookRun } from "./hook-run.ts";
import { lazily } from "../lazy.ts";

/**
 * What one hook said, read by Claude Code's contract: exit 0 with JSON on stdout (or plain text,
 * context for UserPromptSubmit and SessionStart); exit 2 blocks, with stderr as the reason; any
 * other end is a problem the person is told of and changes nothing.
 */
export type HookVerdict = {
  /** Blocked (exit 2, decision "block", permissionDecision "deny"), and why. */
  block?: string;
  /** PreToolUse: "allow" skips asking, "ask" asks the person. */
  permission?: "allow" | "ask";
  reason?: string;
  updatedInput?: Record<string, unknown>;
  /** Said to the model (additionalContext; PostToolUse's block reason goes in `block`). */
  context?: string;
  /** `continue: false`: the turn stops, with this said to the person. */
  stop?: string;
  /** Shown to the person (systemMessage). */
  message?: string;
  /** Why the hook's output was not used: told as a notice. */
  problem?: string;
};

/** What a hook's JSON may say, made the first time a hook prints JSON. */
const outputSchema = lazily(() =>
  z.looseObject({
    continue: z.boolean().optional(),
    stopReason: z.string().optional(),
    systemMessage: z.string().optional(),
    suppressOutput: z.boolean().optional(),
    decision: z.string().optional(),
    reason: z.string().optional(),
    hookSpecificOutput: z
      .looseObject({
        permissionDecision: z.string().optional(),
        permissionDecisionReason: z.string().optional(),
        updatedInput: z.record(z.string(), z.unknown()).optional(),
        additionalContext: z.string().optional(),
      })
      .optional(),
  }),
);
type Output = z.infer<ReturnType<typeof outputSchema>>;

/** Events whose exit 2 blocks; for the others, as in Claude Code, its stderr is shown to the person only. */
const CAN_BLOCK: ReadonlySet<HookEvent> = new Set(["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"]);

/** Events whose plain stdout (exit 0, not JSON) is context for the model, as in Claude Code. */
const PLAIN_IS_CONTEXT: ReadonlySet<HookEvent> = new Set(["UserPromptSubmit", "SessionStart"]);

export function readVerdict(event: HookEvent, run: HookRun): HookVerdict {
  if (run.failed) return { problem: `could not be started: ${run.failed}` };
  if (run.timedOut) return { problem: "did not end within its time limit and was stopped" };
  if (run.overflow) return { problem: "printed more than 1 MiB: its output was not used" };
  if (run.exitCode === 2 && !CAN_BLOCK.has(event)) {
    const said = run.stderr.trim().split("\n")[0] ?? "";
    return { problem: `exited with code 2${said ? `: ${said.slice(0, 300)}` : ""} (a ${event} hook cannot block: the session goes on)` };
  }
  if (run.exitCode === 2) return { block: run.stderr.trim() || `a ${event} hook blocked it` };
  if (run.exitCode !== 0) {
    const said = run.stderr.trim().split("\n")[0] ?? "";
    return { problem: `exited with ${run.exitCode === null ? "a signal" : `code ${run.exitCode}`}${said ? `: ${said.slice(0, 300)}` : ""}` };
  }
  const text = run.stdout.trim();
  if (!text.startsWith("{")) return PLAIN_IS_CONTEXT.has(event) && text ? { context: text } : {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: "printed JSON that does not parse: its output was not used" };
  }
  const parsed = outputSchema().safeParse(json);
  if (!parsed.success) return { problem: `printed JSON lembas cannot read (${parsed.error.issues[0]?.path.join(".") ?? ""}: ${parsed.error.issues[0]?.message ?? ""}): its output was not used` };
  return fromJson(event, parsed.data);
}

function fromJson(event: HookEvent, out: Output): HookVerdict {
  const verdict: HookVerdict = {};
  if (out.continue === false) verdict.stop = out.stopReason ?? `a ${event} hook stopped the turn`;
  if (out.systemMessage) verdict.message = out.systemMessage;
  const specific = out.hookSpecificOutput;
  if (specific?.additionalContext) verdict.context = specific.additionalContext;
  if (event === "PreToolUse") return preToolUse(out, verdict);
  if (out.decision === undefined) return verdict;
  if (out.decision === "block") return { ...verdict, block: out.reason ?? `a ${event} hook blocked it` };
  // "approve" is Claude Code's old word for going on as usual outside PreToolUse.
  if (out.decision === "approve") return verdict;
  return { ...verdict, problem: `named the decision ${JSON.stringify(out.decision)}, which ${event} does not take (block): it was ignored` };
}

/** PreToolUse: hookSpecificOutput.permissionDecision (allow, deny, ask), or the older decision (approve, block). */
function preToolUse(out: Output, verdict: HookVerdict): HookVerdict {
  const specific = out.hookSpecificOutput;
  if (specific?.updatedInput) verdict.updatedInput = specific.updatedInput;
  const decision = specific?.permissionDecision ?? legacy(out.decision);
  const reason = specific?.permissionDecisionReason ?? out.reason;
  if (reason) verdict.reason = reason;
  if (decision === undefined) return verdict;
  if (decision === "deny") return { ...verdict, block: reason ?? "a PreToolUse hook denied it" };
  if (decision === "allow" || decision === "ask") return { ...verdict, permission: decision };
  const { updatedInput: _ignored, ...rest } = verdict;
  return { ...rest, problem: `named the decision ${JSON.stringify(decision)}, which PreToolUse does not take (allow, deny, ask): it was ignored` };
}

function legacy(decision: string | undefined): string | undefined {
  if (decision === "approve") return "allow";
  if (decision === "block") return "deny";
  return decision;
}
