import { ALL_TOOLS } from "../tools/index.ts";

/**
 * A stored tool call's title, as the tool itself gives it when it runs ("Run npm test", "Read
 * src/a.ts"); the tool's name and its first argument when the stored arguments no longer fit.
 */
export function storedToolTitle(name: string, args: unknown, where: { root: string; cwd: string }): string {
  const tool = ALL_TOOLS.find((t) => t.name === name);
  const parsed = tool?.schema.safeParse(args);
  if (tool && parsed?.success) {
    try {
      return tool.title(parsed.data, where);
    } catch {
      // an old call's arguments the title cannot read: said plainly below
    }
  }
  if (args && typeof args === "object") {
    const a = args as Record<string, unknown>;
    const what = a.command ?? a.path ?? a.pattern;
    if (typeof what === "string") return `${name} ${what.split("\n")[0]}`;
  }
  return name;
}
