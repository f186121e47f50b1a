/**
 * Slash commands shared by every front end: the built-ins, then (with the prompts issue) custom
 * commands and skills. A command is either an action (it does something and sends nothing to the
 * model) or a prompt (its text is sent, shown in the transcript as typed).
 */
export type CommandKind = "builtin" | "custom" | "skill";

export type CommandInfo = { name: string; description: string; hint?: string; kind: CommandKind };

export type Invocation =
  | { type: "action"; name: "compact" | "undo" | "plan"; args: string }
  | { type: "prompt"; name: string; text: string; display: string; mode?: "plan" };

/** The built-ins that exist so far, in the spec's order. */
export const BUILTIN_COMMANDS: readonly CommandInfo[] = [
  { name: "compact", description: "Summarise the conversation so far to free the context", kind: "builtin" },
  { name: "plan", description: "Switch to plan mode, or plan a task: /plan <task>", hint: "<task>", kind: "builtin" },
  { name: "undo", description: "Undo the last turn: its file changes and its messages", kind: "builtin" },
];

/** The command a prompt's text invokes, or null when it is not one (then it goes to the model as is). */
export function parseCommand(text: string, commands: readonly CommandInfo[] = BUILTIN_COMMANDS): Invocation | null {
  const match = /^\/([A-Za-z0-9][\w:-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match?.[1]) return null;
  const name = match[1];
  const args = (match[2] ?? "").trim();
  if (!commands.some((c) => c.name === name)) return null;
  if (name === "compact" || name === "undo") return { type: "action", name, args };
  if (name === "plan") {
    if (!args) return { type: "action", name: "plan", args };
    return { type: "prompt", name, text: args, display: text.trim(), mode: "plan" };
  }
  return null;
}
