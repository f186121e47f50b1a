import type { PersonalSettings } from "../config/schema.ts";
import { gitStatus } from "./git-status.ts";
import { type InstructionFile, instructionFiles } from "./instruction-files.ts";
import { personalityText } from "../config/personalities.ts";
import base from "./system-prompt.txt" with { type: "text" };
import chatBase from "./system-prompt-chat.txt" with { type: "text" };

export type { PersonalSettings };

export type PromptInputs = {
  root: string;
  cwd: string;
  personality: string | null;
  personalityCustom: string | null;
  /** The person's own instructions (config.yaml's `instructions`). */
  instructions: string | null;
  files: readonly InstructionFile[];
  /** The git status at the session's start (git-status.ts), or null outside a repository. */
  git: string | null;
  /** The session's start: only its date is said. */
  now: Date;
  /** The skills the model may load, listed (skill-list.ts), or null: none, or a window too small for them. */
  skills?: string | null;
};

/**
 * What the system prompt of a session is made from, read once when it starts: nothing in it
 * changes from step to step or with the mode (modes are said in the conversation: mode-notes.ts),
 * so that a server's prefix cache holds across the whole session. The date comes last, the only
 * part that differs from one day's sessions to the next.
 */
export async function sessionInputs(place: { root: string; cwd: string }, config: PersonalSettings, configDir: string, git = gitStatus(place.root)): Promise<PromptInputs> {
  return {
    ...place,
    personality: config.personality,
    personalityCustom: config.personality_custom,
    instructions: config.instructions,
    files: instructionFiles(place.root, place.cwd, configDir),
    git: await git,
    now: new Date(),
  };
}

/** The system prompt: ours, the environment, the personality, the instruction files, the person's own, the skills, the date. */
export function systemPrompt(input: PromptInputs): string {
  const environment = ["# Environment", `- project root: ${input.root}`, `- working directory: ${input.cwd}`, `- platform: ${process.platform}`];
  if (input.git) environment.push(`- git, at the session's start: ${input.git.replaceAll("\n", "\n  ")}`);
  const parts = [base.trim(), environment.join("\n")];
  const personality = personalityText(input.personality, input.personalityCustom);
  if (personality) parts.push(`# Personality\n${personality}`);
  if (input.files.length > 0 || input.instructions) {
    const blocks = input.files.map((file) => `## ${file.label}\n${file.text}`);
    if (input.instructions) blocks.push(`## The person's instructions\n${input.instructions}`);
    parts.push(`# Instructions\nFollow these; a file nearer the working directory wins over a more general one, and the person's messages win over all.\n\n${blocks.join("\n\n")}`);
  }
  if (input.skills) parts.push(input.skills);
  parts.push(`The session started on ${input.now.toISOString().slice(0, 10)}.`);
  return parts.join("\n\n");
}

/** The system prompt for a model that takes no tools: ours (about tools) gives way to the chat version. */
export function promptWithoutTools(prompt: string): string {
  const head = base.trim();
  if (!prompt.startsWith(head)) return prompt;
  return `${chatBase.trim()}${prompt.slice(head.length)}`;
}
