import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config, Mode } from "../config/schema.ts";
import base from "./system-prompt.txt" with { type: "text" };
import chatBase from "./system-prompt-chat.txt" with { type: "text" };

const MODE_TEXT: Record<Mode, string> = {
  plan: "You are in plan mode: you may only read and search. Study the task, then submit a plan with plan_submit (markdown: the goal, the files to change, the steps, how to check). Do not try to change files or run commands.",
  manual: "You are in manual mode: every file change and every command asks the person first.",
  edit: "You are in edit mode: file changes inside the project go ahead; commands ask the person first.",
  auto: "You are in auto mode: file changes and commands inside the project go ahead.",
};

/** The largest instruction file read, so that a huge AGENTS.md cannot fill the context. */
const MAX_INSTRUCTIONS = 64 * 1024;

function readInstructions(file: string): string | null {
  if (!existsSync(file)) return null;
  const text = readFileSync(file, "utf8").trim();
  if (!text) return null;
  return text.length > MAX_INSTRUCTIONS ? `${text.slice(0, MAX_INSTRUCTIONS)}\n[… cut at 64 KiB]` : text;
}

export type PromptInputs = {
  root: string;
  cwd: string;
  mode: Mode;
  configDir: string;
  personality: string | null;
  personalityCustom: string | null;
  instructions: string | null;
  now?: Date;
};

/** The system prompt of a session at `place`, with the person's settings from config.yaml. */
export function sessionPrompt(place: { root: string; cwd: string; mode: Mode }, config: Pick<Config, "personality" | "personality_custom" | "instructions">, configDir: string): string {
  return systemPrompt({ ...place, configDir, personality: config.personality, personalityCustom: config.personality_custom, instructions: config.instructions });
}

/** The system prompt: ours, the mode, the environment, then AGENTS.md (config dir, then project) and the person's own. */
export function systemPrompt(input: PromptInputs): string {
  const parts = [base.trim(), MODE_TEXT[input.mode]];
  parts.push(
    [
      "Environment:",
      `- project root: ${input.root}`,
      `- working directory: ${input.cwd}`,
      `- platform: ${process.platform}`,
      `- date: ${(input.now ?? new Date()).toISOString().slice(0, 10)}`,
    ].join("\n"),
  );
  const personality = input.personality === "custom" ? input.personalityCustom : input.personality;
  if (personality) parts.push(`Personality: ${personality}`);
  const global = readInstructions(join(input.configDir, "AGENTS.md"));
  if (global) parts.push(`The person's instructions for every project (AGENTS.md):\n${global}`);
  const project = readInstructions(join(input.root, "AGENTS.md"));
  if (project) parts.push(`This project's instructions (AGENTS.md):\n${project}`);
  if (input.instructions) parts.push(`The person's instructions:\n${input.instructions}`);
  return parts.join("\n\n");
}

/**
 * The system prompt for a model that takes no tools: ours and the mode's text (both about tools)
 * give way to the chat version; the environment and the person's instructions stay.
 */
export function promptWithoutTools(prompt: string): string {
  const head = `${base.trim()}\n\n`;
  if (!prompt.startsWith(head)) return prompt;
  let rest = prompt.slice(head.length);
  const mode = Object.values(MODE_TEXT).find((text) => rest.startsWith(text));
  if (mode) rest = rest.slice(mode.length).replace(/^\n\n/, "");
  return rest ? `${chatBase.trim()}\n\n${rest}` : chatBase.trim();
}
