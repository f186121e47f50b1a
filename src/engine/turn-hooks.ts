import { addedContext, blocked, type SessionHooks, stopped } from "./hook-set.ts";
import type { PromptInput } from "./session-types.ts";

/** How many times in a turn Stop hooks may send the model on before it ends all the same. */
export const MAX_STOP_BLOCKS = 3;

/** What the hooks made of a prompt: refused (the reason for the person), or the prompt with their context. */
export type PromptHooked = { refused: string } | { input: PromptInput };

/**
 * Runs the hooks before a prompt reaches the model: SessionStart at a session's first prompt here
 * (`start`: "startup" for a new session, "resume" for one opened from the store), then
 * UserPromptSubmit. What they add (additionalContext, or plain stdout) goes with the prompt to the
 * model; the person still sees what they typed. Exit 2, `decision: "block"` or `continue: false`
 * refuses the prompt.
 */
export async function promptHooks(hooks: SessionHooks, input: PromptInput, start: "startup" | "resume" | null, signal: AbortSignal): Promise<PromptHooked> {
  hooks.sayNotes();
  const added: string[] = [];
  if (start && hooks.has("SessionStart")) {
    const context = addedContext(await hooks.run("SessionStart", start, { source: start }, signal));
    if (context) added.push(context);
  }
  if (hooks.has("UserPromptSubmit")) {
    const verdicts = await hooks.run("UserPromptSubmit", null, { prompt: input.text }, signal);
    const refusal = blocked(verdicts) ?? stopped(verdicts);
    if (refusal !== null) return { refused: refusal };
    const context = addedContext(verdicts);
    if (context) added.push(context);
  }
  if (added.length === 0) return { input };
  return { input: { ...input, display: input.display ?? input.text, text: `${input.text}\n\n<hook-context>\n${added.join("\n\n")}\n</hook-context>` } };
}

/**
 * Runs the Stop hooks as the model is about to end its turn. The reason to go on when one blocks
 * (exit 2's stderr, `decision: "block"`'s reason), else null. `active`: a Stop hook has sent the
 * model on earlier in this turn (Claude Code's stop_hook_active).
 */
export async function stopHooks(hooks: SessionHooks, active: boolean, signal: AbortSignal): Promise<string | null> {
  if (!hooks.has("Stop")) return null;
  const verdicts = await hooks.run("Stop", null, { stop_hook_active: active }, signal);
  if (stopped(verdicts) !== null) return null;
  return blocked(verdicts);
}
