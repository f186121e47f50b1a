import { z } from "zod";
import { parseRule } from "./permission-rules.ts";

// The rules' schemas apart from parseRule: the engine reads kept and configured rules on every
// start without zod; these check a file's rules where they enter (config.yaml, a settings file).

/** One rule's text, checked where it enters (config.yaml, a settings file). */
export const RuleText = z.string().superRefine((text, ctx) => {
  const parsed = parseRule(text);
  if ("error" in parsed) ctx.addIssue({ code: "custom", message: parsed.error });
});

/** `permissions:` in config.yaml and in a settings file. */
export const PermissionsConfig = z
  .object({
    allow: z.array(RuleText).default([]),
    ask: z.array(RuleText).default([]),
    deny: z.array(RuleText).default([]),
  })
  .strict();
