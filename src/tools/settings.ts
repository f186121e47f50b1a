import { z } from "zod";
import { fail, ok } from "./result.ts";
import description from "./settings.txt" with { type: "text" };
import { defineTool } from "./tool.ts";

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    action: z.enum(["get", "set"]),
    model: z.string().min(1).optional().describe("One that get lists"),
    effort: z.enum(["off", "low", "medium", "high"]).optional(),
    mode: z.enum(["plan", "manual", "edit", "auto"]).optional(),
  });

type Change = { model?: string; effort?: string; mode?: string };

/** settings: the session's model, effort and mode, read or changed. */
export const settingsTool = defineTool({
  name: "settings",
  description,
  schema,
  permission: "none",
  needs: ["settings"],
  kind: "other",
  title: (input) => {
    if (input.action === "get") return "Read the settings";
    const parts = Object.entries(changeOf(input)).map(([key, value]) => `${key} ${value}`);
    return `Change the settings: ${parts.join(", ") || "nothing"}`;
  },
  paths: () => [],
  async execute(input, ctx) {
    if (input.action === "get") return ok(formatSettings(ctx.settings.get()));
    const change = changeOf(input);
    if (Object.keys(change).length === 0) return fail('Nothing to set: give model, effort or mode with action "set".');
    try {
      return ok(await ctx.settings.set(change));
    } catch (error) {
      return fail(`The settings were not changed: ${error instanceof Error ? error.message : String(error)}`);
    }
  },
});

function changeOf(input: z.infer<ReturnType<typeof schema>>): Change {
  return {
    ...(input.model !== undefined ? { model: input.model } : {}),
    ...(input.effort !== undefined ? { effort: input.effort } : {}),
    ...(input.mode !== undefined ? { mode: input.mode } : {}),
  };
}

function formatSettings(s: { model: string | null; effort: string; mode: string; models: string[] }): string {
  const models = s.models.length ? s.models.map((m) => `- ${m}`).join("\n") : "(none listed)";
  return `model: ${s.model ?? "(none)"}\neffort: ${s.effort}\nmode: ${s.mode}\n\nModels that can be chosen:\n${models}`;
}
