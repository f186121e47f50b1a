import type { SessionBus } from "../bus/index.ts";
import { keptDiffs } from "./kept-diffs.ts";
import type { ToolResultRecord } from "./records.ts";

type HelperCall = NonNullable<ToolResultRecord["helpers"]>[number];

/**
 * The calls a helper (the task tool's) makes for one call of its parent, as the parent's bus tells
 * them (sub_tool): each as it was last shown, kept with the parent's result so that session/load
 * shows them again with their diffs. `take` stops listening and gives them, in the order they began.
 */
export function followHelperCalls(bus: SessionBus, parentCallId: string): { take(): HelperCall[] } {
  const calls = new Map<string, HelperCall>();
  const stop = bus.subscribe((event) => {
    if (event.type !== "sub_tool" || event.parentCallId !== parentCallId) return;
    const diffs = event.diffs?.length ? keptDiffs(event.diffs) : undefined;
    calls.set(event.callId, { title: event.title, status: event.status, ...(diffs ? { diffs } : {}) });
  });
  return {
    take() {
      stop();
      return [...calls.values()];
    },
  };
}
