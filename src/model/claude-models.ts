import type { ModelWindow } from "./discovery.ts";

/**
 * What lembas knows of Claude models by their ids, since Anthropic's model list says neither
 * their window nor their output limit (docs.anthropic.com/en/docs/about-claude/models/overview,
 * "Model comparison table"): every Claude 3 and later model reads 200k tokens (Sonnet 4 and 4.5
 * read 1M only behind a beta header: set context under the connection for it). First match wins.
 */
type ClaudeModel = { pattern: RegExp; maxOutput: number; thinks: boolean };

const CLAUDE_MODELS: readonly ClaudeModel[] = [
  { pattern: /claude-opus-4-[01]|claude-opus-4(-2025|$)/, maxOutput: 32_000, thinks: true },
  { pattern: /claude-(opus|sonnet|haiku)-4/, maxOutput: 64_000, thinks: true },
  { pattern: /claude-3-7-sonnet/, maxOutput: 64_000, thinks: true },
  { pattern: /claude-3-5-(sonnet|haiku)/, maxOutput: 8_192, thinks: false },
  { pattern: /claude-3-(opus|sonnet|haiku)/, maxOutput: 4_096, thinks: false },
];

/** The window of every Claude model in the table. */
export const CLAUDE_WINDOW = 200_000;

/** A model the table does not know (a newer one): as the newest it knows. */
const NEWER: Omit<ClaudeModel, "pattern"> = { maxOutput: 64_000, thinks: true };

/** The window, output limit and whether it takes `thinking`, of a Claude model by its id. */
export function claudeModel(id: string): { window: number; maxOutput: number; thinks: boolean; known: boolean } {
  const found = CLAUDE_MODELS.find((m) => m.pattern.test(id.toLowerCase()));
  const { maxOutput, thinks } = found ?? NEWER;
  return { window: CLAUDE_WINDOW, maxOutput, thinks, known: found !== undefined };
}

/**
 * A window nothing said, for a Claude model the Messages API serves (`claude` its id; null: another
 * API's): the table's. Another model behind a Messages connection (a proxy's, another vendor's
 * Anthropic-compatible endpoint) is no Claude model: it keeps the window the connection's context,
 * the server's model list or the default gave it.
 */
export function knownWindow(window: ModelWindow, claude: string | null): ModelWindow {
  if (window.from !== "default" || claude === null || !/claude/i.test(claude)) return window;
  return { tokens: claudeModel(claude).window, from: "server", where: "the size of Claude models (lembas's table)" };
}
