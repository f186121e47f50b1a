import { type LoopGuard, sameCallKey } from "./loop-guard.ts";
import type { ToolCallRecord, ToolResultRecord } from "./records.ts";
import { endedUnrun, type JudgedCall, judgeToolCall, onlyReads, type RunToolDeps, runJudgedCall } from "./tool-runner.ts";
import { skippedResults, type StopReason } from "./turn.ts";

export type StepCallsInput = {
  calls: readonly ToolCallRecord[];
  /** The runner's deps as they are now: an earlier call may have changed the mode or what is allowed. */
  deps(): RunToolDeps;
  guard: LoopGuard;
  signal: AbortSignal;
  /** Takes each result, in the order the model made the calls. */
  record(result: ToolResultRecord): void;
};

/**
 * Runs one step's tool calls. Each maximal run of consecutive calls that only read and need no
 * approval runs at once; every other call runs alone, in order, after what came before it ended.
 * Results are recorded in the calls' order whatever order they finished in. Null when the turn
 * goes on; else how it ends: cancelled, or max_turn_requests when the model kept repeating a call
 * the loop guard stopped (said on the bus), or cancelled when a hook's `continue: false` stopped the
 * turn (its stopReason said on the bus). The calls not started then get a result saying so.
 */
export async function runStepCalls(input: StepCallsInput): Promise<StopReason | null> {
  const { calls, guard } = input;
  let halt: string | null = null;
  let i = 0;
  while (i < calls.length) {
    if (halt !== null) return haltedBy(halt, input, calls.slice(i));
    if (input.signal.aborted) {
      skipped(input, calls.slice(i), "Not run: the turn was cancelled.");
      return "cancelled";
    }
    const call = calls[i] as ToolCallRecord;
    const deps: RunToolDeps = { ...input.deps(), stopTurn: (reason) => (halt ??= reason) };
    const stopped = guard.stop(call);
    if (stopped) {
      showStopped(call, deps);
      take(input, call, stopped);
      i++;
      const ended = guard.ended();
      if (!ended) continue;
      skipped(input, calls.slice(i), "Not run: the turn was stopped, as the model kept repeating a call that failed.");
      deps.bus.emit({ type: "notice", level: "warn", message: ended });
      return "max_turn_requests";
    }
    const first = judgeToolCall(call, deps);
    if (!onlyReads(first)) {
      take(input, call, "output" in first ? endedUnrun(first, deps.bus) : await runJudgedCall(first, deps));
      i++;
      continue;
    }
    const reads = [first, ...readsAfter(calls, first, i, deps)];
    const results = await Promise.all(reads.map((judged) => runJudgedCall(judged, deps)));
    for (const [k, result] of results.entries()) take(input, calls[i + k] as ToolCallRecord, result);
    i += reads.length;
  }
  if (halt !== null) return haltedBy(halt, input, []);
  return input.signal.aborted ? "cancelled" : null;
}

/**
 * A hook's `continue: false` ends the turn as it is (the person did not cancel it: an end of turn,
 * exit 0 for `lembas run`): the calls left are not run, its stopReason is said to the person (not the model).
 */
function haltedBy(reason: string, input: StepCallsInput, left: readonly ToolCallRecord[]): StopReason {
  skipped(input, left, "Not run: a hook stopped the turn.");
  input.deps().bus.emit({ type: "notice", level: "warn", message: `a hook stopped the turn: ${reason}` });
  return "end_turn";
}

/**
 * The calls after `start` that only read, judged; stops before a call like the one before it,
 * whose loop guard must see that one's result first, and before one more of a tool than it lets
 * run at once (its `atOnce`: helpers).
 */
function readsAfter(calls: readonly ToolCallRecord[], first: JudgedCall, start: number, deps: RunToolDeps): JudgedCall[] {
  const reads: JudgedCall[] = [];
  const running = new Map<string, number>([[first.tool.name, 1]]);
  for (let k = start + 1; k < calls.length; k++) {
    const call = calls[k] as ToolCallRecord;
    if (sameCallKey(call) === sameCallKey(calls[k - 1] as ToolCallRecord)) break;
    const judged = judgeToolCall(call, deps);
    if (!onlyReads(judged)) break;
    const count = (running.get(judged.tool.name) ?? 0) + 1;
    if (judged.tool.atOnce !== undefined && count > judged.tool.atOnce) break;
    running.set(judged.tool.name, count);
    reads.push(judged);
  }
  return reads;
}

/** The calls left when the step stopped: each recorded, and told ended, with why it did not run. */
function skipped(input: StepCallsInput, left: readonly ToolCallRecord[], why: string): void {
  const { bus } = input.deps();
  for (const r of skippedResults(left, why)) input.record(endedUnrun(r, bus));
}

function take(input: StepCallsInput, call: ToolCallRecord, result: ToolResultRecord): void {
  input.guard.note(call, result);
  input.record(result);
}

/** The person sees the stopped call as refused, with the reason. */
function showStopped(call: ToolCallRecord, deps: RunToolDeps): void {
  const judged = judgeToolCall(call, deps);
  const shown = "output" in judged ? { title: call.name, kind: "other" } : { title: judged.title, kind: judged.tool.kind };
  deps.bus.emit({ type: "tool_denied", callId: call.id, name: call.name, ...shown, reason: "repeated after failing twice in a row; the model is told to change its approach" });
}
