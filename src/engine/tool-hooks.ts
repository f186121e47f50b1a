import type { ToolCallRecord, ToolResultRecord } from "./records.ts";
import { addedContext, blocked, type SessionHooks, stopped } from "./hook-set.ts";
import type { Decision } from "./permissions.ts";
import { toolResponse } from "./tool-response.ts";

/** The part of a judged call (tool-runner.ts) the hooks read and change. */
type Judged = { call: ToolCallRecord; input: unknown; decision: Decision; tool: { name: string }; paths: string[] };

/** How the PreToolUse hooks left a call: to run as judged (maybe judged again on new input), or refused with the hooks' reason. */
export type BeforeTool<J> = { run: J } | { refused: string; stop: string | null };

/**
 * Runs the PreToolUse hooks of a call. Exit 2 or `deny`: refused, the reason for the model;
 * `updatedInput`: the call is judged again on that input (so it asks, or is refused, as that input
 * would be); `ask`: the person is asked even where the mode would not; `allow`: not asked where
 * the mode would ask. A hook never lifts what the mode or a protected path refuses.
 */
export async function beforeTool<J extends Judged>(judged: J, hooks: SessionHooks, signal: AbortSignal, judge: (call: ToolCallRecord) => J | ToolResultRecord): Promise<BeforeTool<J> | { result: ToolResultRecord }> {
  const verdicts = await hooks.run("PreToolUse", judged.tool.name, { tool_name: judged.tool.name, tool_input: stdinInput(judged.input, judged.paths), tool_use_id: judged.call.id }, signal);
  const stop = stopped(verdicts);
  const refusal = blocked(verdicts) ?? stop;
  if (refusal !== null) return { refused: refusal, stop };
  const updated = verdicts.findLast((v) => v.verdict.updatedInput)?.verdict.updatedInput;
  let current: J = judged;
  if (updated) {
    const again = judge({ ...judged.call, arguments: JSON.stringify(merged(judged.input, updated, judged.paths)) });
    if ("output" in again) return { result: again };
    current = again;
  }
  const wanted = verdicts.map((v) => v.verdict.permission);
  const reason = verdicts.find((v) => v.verdict.reason)?.verdict.reason;
  const action = current.decision.action;
  if (action !== "deny" && wanted.includes("ask")) {
    return { run: { ...current, decision: { action: "ask", reason: reason ?? "a PreToolUse hook asks you about it", always: null } } };
  }
  if (action === "ask" && current.decision.modeAsk && wanted.includes("allow")) return { run: { ...current, decision: { action: "allow", reason: "a PreToolUse hook allowed it", always: null } } };
  return { run: current };
}

/**
 * Runs the PostToolUse hooks of a call that ran: what they say for the model (a block's reason,
 * exit 2's stderr, additionalContext) follows the tool's output in its result; `stop` is why a
 * hook's `continue: false` ends the turn, null when none did.
 */
export async function afterTool(judged: Judged, args: unknown, record: ToolResultRecord, meta: Record<string, unknown> | undefined, hooks: SessionHooks, signal: AbortSignal): Promise<{ record: ToolResultRecord; stop: string | null }> {
  const fields = {
    tool_name: judged.tool.name,
    tool_input: stdinInput(args, judged.paths),
    tool_response: toolResponse(judged.tool.name, args, judged.paths, record, meta),
    tool_use_id: judged.call.id,
  };
  const verdicts = await hooks.run("PostToolUse", judged.tool.name, fields, signal);
  const stop = stopped(verdicts);
  const said = [blocked(verdicts), addedContext(verdicts)].filter((t): t is string => t !== null);
  if (said.length === 0) return { record, stop };
  return { record: { ...record, output: `${record.output}\n\n[PostToolUse hook] ${said.join("\n\n")}` }, stop };
}

/**
 * The tool's input as a hook reads it: as the model sent it, and for a tool with a `path`, also
 * Claude Code's `file_path`, so that a script reading `.tool_input.file_path` works unchanged.
 */
function stdinInput(input: unknown, paths: readonly string[]): unknown {
  if (typeof input !== "object" || input === null) return input;
  const path = (input as { path?: unknown }).path;
  return typeof path === "string" ? { ...input, file_path: paths[0] ?? path } : input;
}

/** The input a hook's updatedInput makes: its keys over the call's; a changed `file_path` is the new `path`. */
function merged(input: unknown, updated: Record<string, unknown>, paths: readonly string[]): Record<string, unknown> {
  const { file_path: filePath, ...rest } = updated;
  const out: Record<string, unknown> = { ...(typeof input === "object" && input !== null ? input : {}), ...rest };
  if (typeof filePath === "string" && filePath !== paths[0] && rest.path === undefined) out.path = filePath;
  return out;
}
