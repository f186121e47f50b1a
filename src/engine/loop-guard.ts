import type { ToolCallRecord, ToolResultRecord } from "./records.ts";

/** How many identical failures in a row stop the next identical call. */
const FAILURES_BEFORE_STOP = 2;
/** How many stopped repeats in a row end the turn: the model does not hear that it must change its approach. */
const STOPS_BEFORE_END = 3;

/**
 * Stops a model repeating a call that keeps failing. "The same call": the same tool name and the
 * same arguments as JSON values (key order and whitespace aside; arguments that are not JSON
 * compared as their text). "In a row": consecutive calls of one turn, in the order the model made
 * them, across its steps; any other call between them, a success, or a word from the person in
 * the turn (steering: they may have fixed the cause) starts the count again. The
 * third identical call after two failures is not run, and neither is any further one; after
 * the third call stopped in a row the turn ends ({@link LoopGuard.ended}).
 */
export class LoopGuard {
  private last: string | null = null;
  private lastName = "";
  private failures = 0;

  /** The result that stands in for the call when it would be the third failure in a row; null: run it. */
  stop(call: ToolCallRecord): ToolResultRecord | null {
    if (this.failures < FAILURES_BEFORE_STOP || sameCallKey(call) !== this.last) return null;
    return {
      callId: call.id,
      name: call.name,
      isError: true,
      output:
        `Not run: this ${call.name} call, with these same arguments, has failed ${this.failures} times in a row; ` +
        "it would fail the same way again. Change your approach: read the error, then try other arguments or another tool, " +
        "or ask the person if you are blocked.",
    };
  }

  /** Why the turn must end: the model kept sending a call that was stopped; null while it has not. */
  ended(): string | null {
    if (this.failures < FAILURES_BEFORE_STOP + STOPS_BEFORE_END) return null;
    return (
      `the turn stopped: the model sent the same ${this.lastName} call ${this.failures} times in a row; it failed ${FAILURES_BEFORE_STOP} times, ` +
      `and ${STOPS_BEFORE_END} more were not run although the model was told each time to change its approach. Say what to do differently, or try another model`
    );
  }

  /** Starts the count again. */
  forget(): void {
    this.last = null;
    this.failures = 0;
  }

  /** Counts a call's result, in the order the calls were made. */
  note(call: ToolCallRecord, result: ToolResultRecord): void {
    const key = sameCallKey(call);
    if (!result.isError) {
      this.last = null;
      this.failures = 0;
      return;
    }
    this.failures = key === this.last ? this.failures + 1 : 1;
    this.last = key;
    this.lastName = call.name;
  }
}

/** What makes two calls "the same": the tool's name and its arguments as a canonical JSON text. */
export function sameCallKey(call: ToolCallRecord): string {
  return `${call.name}\0${canonicalArguments(call.arguments)}`;
}

function canonicalArguments(text: string): string {
  if (!text.trim()) return "{}";
  try {
    return JSON.stringify(sorted(JSON.parse(text) as unknown));
  } catch {
    return text.trim();
  }
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, sorted(v)]));
}
