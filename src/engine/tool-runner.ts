import type { z } from "zod";
import type { SessionBus } from "../bus/index.ts";
import type { Mode } from "../config/schema.ts";
import { errorMessage } from "../errors.ts";
import type { ProtectedPaths } from "../project/protected.ts";
import { capOutput, MAX_RESULT_CHARS, type Need, type Tool, type ToolContext, type ToolResult } from "../tools/tool.ts";
import type { Interaction, KeepChoice } from "./interaction.ts";
import { COMMAND_TOOL, DENIED_BY_YOU, deniedResult, whatItDoes } from "./approval.ts";
import { realPath } from "../real-path.ts";
import { type Decision, decide, deniedKey } from "./permissions.ts";
import type { ActiveRule } from "./rule-match.ts";
import { deniedReads, withDeniedReads } from "./denied-reads.ts";
import type { SessionHooks } from "./hook-set.ts";
import { afterTool, beforeTool } from "./tool-hooks.ts";
import { notify } from "./notify-hooks.ts";
import type { ToolCallRecord, ToolResultRecord } from "./records.ts";
import { keptDiffs } from "./kept-diffs.ts";
import { followHelperCalls } from "./helper-calls.ts";

export type RunToolDeps = {
  sessionId: string;
  bus: SessionBus;
  tools: ReadonlyMap<string, Tool>;
  mode: Mode;
  root: string;
  protectedPaths: ProtectedPaths;
  allowed: Set<string>;
  /** The permission rules in force (session-rules.ts). */
  rules?: readonly ActiveRule[];
  /** Keeps rules the person chose to keep from a card, for the project or everywhere. */
  keep?: (action: "allow" | "deny", rules: string[], choice: KeepChoice) => void;
  interaction: Interaction;
  signal: AbortSignal;
  /** The HOME commands run with, which a path starting with ~ in a command line means. */
  home?: string | undefined;
  /** The context of one call (`callId`) of a tool: the call, and the capabilities it declared (`needs`). */
  context(callId: string, needs: readonly Need[]): ToolContext;
  /** Called as soon as the tool's execute returns (or throws), before anything else is done. */
  afterExecute?: () => void;
  /** The session's hooks (PreToolUse, PostToolUse, and Notification when a card waits), when it has any. */
  hooks?: SessionHooks | null;
  /** Told when a PreToolUse or PostToolUse hook's `continue: false` ends the turn, with its stopReason. */
  stopTurn?: (reason: string) => void;
};

/** A call parsed, validated and judged (run, ask or refuse), not yet run. */
export type JudgedCall = {
  call: ToolCallRecord;
  tool: Tool;
  input: unknown;
  ctx: ToolContext;
  paths: string[];
  title: string;
  command: string | undefined;
  decision: Decision;
};

/**
 * Runs one tool call the model made, from its raw JSON arguments to the result the model sees:
 * parse, validate, decide (run, ask, refuse), execute. Never throws: every failure is a result.
 */
export async function runToolCall(call: ToolCallRecord, deps: RunToolDeps): Promise<ToolResultRecord> {
  const judged = judgeToolCall(call, deps);
  return "output" in judged ? endedUnrun(judged, deps.bus) : runJudgedCall(judged, deps);
}

/**
 * A call that ends without having run (its arguments are not JSON or not its tool's, there is no
 * such tool, the turn was cancelled before it ran): its end is told with what the model is told,
 * so that whoever shows the call (an editor's card) shows why.
 */
export function endedUnrun(result: ToolResultRecord, bus: SessionBus): ToolResultRecord {
  bus.emit({ type: "tool_end", callId: result.callId, name: result.name, output: result.output, isError: true });
  return result;
}

/** True for a call that only reads and runs without asking anyone: it may run beside others like it. */
export function onlyReads(judged: JudgedCall | ToolResultRecord): judged is JudgedCall {
  return !("output" in judged) && judged.tool.permission === "read" && judged.decision.action === "allow" && judged.tool.runsAlone?.(judged.input) !== true;
}

/** Parses, validates and judges a call without running anything; a call that cannot run is its result already. */
export function judgeToolCall(call: ToolCallRecord, deps: RunToolDeps): JudgedCall | ToolResultRecord {
  const fail = (output: string, args?: unknown): ToolResultRecord => ({ callId: call.id, name: call.name, output, isError: true, args });
  const tool = deps.tools.get(call.name);
  if (!tool) {
    return fail(`There is no tool named "${call.name}". The tools are: ${[...deps.tools.keys()].join(", ")}.`);
  }
  const parsed = parseArguments(call.arguments);
  if (!parsed.ok) return fail(`The arguments of ${call.name} are not valid JSON (${parsed.error}). Send them again as one JSON object.`);
  const input = tool.schema.safeParse(parsed.value);
  if (!input.success) return fail(`Invalid input for ${call.name}: ${describeIssues(input.error)}. Fix the arguments and call it again.`, parsed.value);

  const ctx = withDeniedReads(deps.context(call.id, tool.needs), deniedReads(deps.rules, deps.root, deps.home));
  const paths = tool.paths?.(input.data, ctx) ?? [];
  // A path is judged as written and as it really is: a symlink inside the project may point out of
  // it, or at a protected file.
  const judged = [...new Set(paths.flatMap((p) => [p, realPath(p)]))];
  // Only bash's input is a command line: another tool's `command` argument (an MCP tool's) is not one.
  const command = tool.name === COMMAND_TOOL && typeof (input.data as { command?: unknown }).command === "string" ? (input.data as { command: string }).command : undefined;
  const decision = decide({
    mode: deps.mode,
    permission: tool.permission,
    toolName: tool.name,
    paths: judged,
    hosts: tool.hosts?.(input.data) ?? [],
    command,
    cwd: ctx.cwd,
    home: deps.home,
    root: deps.root,
    protectedPaths: deps.protectedPaths,
    allowed: deps.allowed,
    ...(deps.rules ? { rules: deps.rules } : {}),
    ...(tool.allowKey !== undefined ? { allowKey: tool.allowKey } : {}),
    ...(tool.asksFirst ? { asksFirst: true } : {}),
  });
  return { call, tool, input: input.data, ctx, paths, title: safeTitle(tool, input.data, ctx), command, decision };
}

/** Runs a judged call: refused, asked about, or executed, with its bus events. */
export async function runJudgedCall(modelJudged: JudgedCall, deps: RunToolDeps): Promise<ToolResultRecord> {
  const shown = { title: modelJudged.title, kind: modelJudged.tool.kind };
  const fail = (output: string, args?: unknown): ToolResultRecord => ({ callId: modelJudged.call.id, name: modelJudged.call.name, output, isError: true, args, ...shown });
  let judged = modelJudged;
  if (deps.hooks?.has("PreToolUse")) {
    const before = await beforeTool(modelJudged, deps.hooks, deps.signal, (call) => judgeToolCall(call, deps));
    if ("result" in before) return before.result;
    if ("refused" in before) {
      const { call, tool, title, input } = modelJudged;
      if (before.stop !== null) deps.stopTurn?.(before.stop);
      deps.bus.emit({ type: "tool_denied", callId: call.id, name: call.name, title, kind: tool.kind, reason: `a PreToolUse hook refused it: ${before.refused}` });
      return fail(`Refused by a PreToolUse hook: ${before.refused}`, input);
    }
    judged = before.run;
  }
  const { call, tool, input, ctx, paths, title, command, decision } = judged;
  let args: unknown = input;
  if (decision.action === "deny") {
    deps.bus.emit({ type: "tool_denied", callId: call.id, name: call.name, title, kind: tool.kind, reason: decision.reason });
    return fail(`Refused: ${decision.reason}.`, input);
  }
  const refused = decision.action === "ask" ? await tool.refusedBeforeAsking?.(input, ctx) : null;
  if (refused) {
    deps.bus.emit({ type: "tool_denied", callId: call.id, name: call.name, title, kind: tool.kind, reason: refused });
    return fail(refused, input);
  }
  // Cancelled meanwhile (a PreToolUse hook ran as the editor went): nobody is asked, nor answers.
  if (deps.signal.aborted) return endedUnrun(fail("Cancelled before it ran.", input), deps.bus);
  if (decision.action === "ask") {
    notify(deps.hooks, "permission_prompt", `lembas needs your permission: ${title}`);
    const answer = await deps.interaction.permission(
      {
        sessionId: deps.sessionId,
        callId: call.id,
        toolName: tool.name,
        title,
        kind: tool.kind,
        rawInput: input,
        ...(await whatItDoes(tool, input, ctx)),
        reason: decision.reason,
        always: decision.always?.label ?? null,
        ...(decision.always?.rules ? { keep: decision.always.rules } : {}),
      },
      deps.signal,
    );
    if (deps.signal.aborted) return endedUnrun(fail("Cancelled before it ran.", input), deps.bus);
    // A line the person corrected is theirs to run once: nothing is kept of the model's.
    const keeping = answer.keep && decision.always?.rules && !answer.command ? decision.always.rules : null;
    if (keeping && answer.keep && answer.outcome !== "once") deps.keep?.(answer.outcome === "deny" ? "deny" : "allow", keeping, answer.keep);
    if (answer.outcome === "deny" && answer.forSession && decision.always) for (const key of decision.always.keys) deps.allowed.add(deniedKey(key));
    if (answer.outcome === "deny") {
      deps.bus.emit({
        type: "tool_denied",
        callId: call.id,
        name: call.name,
        title,
        kind: tool.kind,
        // The person's No is theirs, not the rule that made lembas ask.
        reason: answer.unanswered ? decision.reason : DENIED_BY_YOU,
        ...(answer.feedback ? { feedback: answer.feedback } : {}),
      });
      return fail(deniedResult(tool.name, decision.reason, answer), input);
    }
    // A line the person corrected is theirs to run once: "always" was offered for the model's.
    if (answer.outcome === "session" && decision.always && !answer.command) for (const key of decision.always.keys) deps.allowed.add(key);
    if (answer.command && command !== undefined) {
      args = { ...(input as Record<string, unknown>), command: answer.command };
    }
  }

  const locations = paths.map((p) => ({ path: p }));
  deps.bus.emit({ type: "tool_start", callId: call.id, name: tool.name, args, title, kind: tool.kind, locations });
  const helpers = followHelperCalls(deps.bus, call.id);
  const result = await execute(tool, args, ctx);
  const helperCalls = helpers.take();
  deps.afterExecute?.();
  const corrected = args !== input ? `(The person corrected the command to: ${(args as { command: string }).command})\n` : "";
  let record: ToolResultRecord = {
    callId: call.id,
    name: call.name,
    // One cap for every tool, so that no result can flood the model's context.
    output: capOutput(corrected + result.output, MAX_RESULT_CHARS, tool.more),
    isError: result.isError ?? false,
    args,
    ...(result.images && result.images.length > 0 ? { images: result.images } : {}),
    ...(result.diffs && result.diffs.length > 0 ? { diffs: keptDiffs(result.diffs) } : {}),
    title,
    kind: tool.kind,
    ...(paths.length > 0 ? { paths } : {}),
    ...(helperCalls.length > 0 ? { helpers: helperCalls } : {}),
  };
  if (deps.hooks?.has("PostToolUse")) {
    const after = await afterTool(judged, args, record, result.meta, deps.hooks, deps.signal);
    record = after.record;
    if (after.stop !== null) deps.stopTurn?.(after.stop);
  }
  deps.bus.emit({
    type: "tool_end",
    callId: call.id,
    name: tool.name,
    output: record.output,
    isError: record.isError,
    ...(result.diffs ? { diffs: result.diffs.map((d) => ({ ...d, path: d.path })) } : {}),
    ...(result.meta ? { meta: result.meta } : {}),
  });
  return record;
}

async function execute(tool: Tool, args: unknown, ctx: ToolContext): Promise<ToolResult> {
  try {
    return await tool.execute(args as z.infer<typeof tool.schema>, ctx);
  } catch (error) {
    return { output: `${tool.name} failed: ${errorMessage(error)}`, isError: true };
  }
}

function safeTitle(tool: Tool, input: unknown, ctx: ToolContext): string {
  try {
    return tool.title(input as z.infer<typeof tool.schema>, ctx);
  } catch {
    return tool.name;
  }
}

function parseArguments(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (!text.trim()) return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "input"}: ${issue.message}`)
    .join("; ");
}
