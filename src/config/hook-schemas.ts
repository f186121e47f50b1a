import { z } from "zod";
import { lazily } from "../lazy.ts";

// config.yaml's hooks, apart from its schema: a project's settings file is read with these on
// every start, where config.yaml's own schema is built only for a file the fast reader does not
// take (config/fast-read.ts).

/** The hook events lembas runs, by Claude Code's names (README "Hooks"). */
export const HOOK_EVENTS = ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "SessionEnd", "PreCompact", "Notification"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** One hook: a command line run through the shell, with its time limit in seconds (Claude Code's shape). */
const hookCommandSchema = lazily(() =>
  z
    .object({
      // Checked by hand: the loader says "must be one of …" of a literal, and this says why.
      type: z.string().refine((type) => type === "command", { message: 'must be "command" (lembas runs hooks as commands)' }),
      command: z.string().min(1, { message: "must be a command line" }),
      timeout: z.number().positive({ message: "must be a number of seconds above 0" }).max(3600, { message: "must be at most 3600 seconds" }).optional(),
    })
    .strict(),
);

/**
 * Hooks run when the matcher matches: a tool name, names joined by |, a regular expression, or "*" / "" / absent for all.
 * Made when config.yaml or a project's settings file has hooks (most have none).
 */
export const hookGroupSchema = lazily(() =>
  z
    .object({
      matcher: z
        .string()
        .refine((m) => validMatcher(m), { message: "is not a regular expression lembas can read" })
        .optional(),
      hooks: z.array(hookCommandSchema()),
    })
    .strict(),
);
export type HookGroup = z.infer<ReturnType<typeof hookGroupSchema>>;

/** Claude Code's `hooks`: each event names groups of hooks. */
export const hooksSchema = lazily(() => z.partialRecord(z.enum(HOOK_EVENTS), z.array(hookGroupSchema())));
export type HooksConfig = z.infer<ReturnType<typeof hooksSchema>>;

function validMatcher(matcher: string): boolean {
  // Claude Code's "every tool": not a regular expression, so it is taken before RegExp sees it.
  if (matcher === "*" || matcher === "") return true;
  try {
    new RegExp(matcher);
    return true;
  } catch {
    return false;
  }
}
