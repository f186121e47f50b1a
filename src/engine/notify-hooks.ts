import type { SessionHooks } from "./hook-set.ts";

/**
 * Tells the Notification hooks that something waits for the person: an approval
 * (permission_prompt), a question or a plan to approve (elicitation_dialog), the end of a turn
 * (idle_prompt). They run beside what waits, never holding it up, to their own time limit.
 */
export function notify(hooks: SessionHooks | null | undefined, type: "permission_prompt" | "elicitation_dialog" | "idle_prompt", message: string): void {
  if (hooks?.has("Notification")) void hooks.run("Notification", type, { message, notification_type: type }, new AbortController().signal);
}
