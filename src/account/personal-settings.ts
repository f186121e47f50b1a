/**
 * Which personal settings a session's system prompt takes: config.yaml's `personality`,
 * `personality_custom` and `instructions`, or, logged in to exactly one instance that has
 * personalization available, that instance's in their place (spec/acp.md, /v1/me/personalization).
 */
import { isPreset } from "../config/personalities.ts";
import type { PersonalSettings } from "../config/schema.ts";
import type { Personalization } from "../store/personalization.ts";

/** A login and what its instance (last) said of personalization; null: nothing known (never read, 404). */
export type LoginPersonalization = { login: { name: string; url: string }; value: Personalization | null };

export type AppliedSettings = { source: { kind: "local" } | { kind: "instance"; login: { name: string; url: string } }; settings: PersonalSettings };

const NONE: PersonalSettings = { personality: null, personality_custom: null, instructions: null };

/** config.yaml's own keys; a file that does not load has none (its error is said where it is read for itself). */
export function localKeys(config: () => PersonalSettings): PersonalSettings {
  try {
    const { personality, personality_custom, instructions } = config();
    return { personality, personality_custom, instructions };
  } catch {
    return NONE;
  }
}

/** The rule, pure: exactly one login whose instance has it available → its values; else the local keys. */
export function appliedSettings(local: PersonalSettings, logins: readonly LoginPersonalization[]): AppliedSettings {
  const having = logins.filter((l) => l.value?.available === true);
  const only = having.length === 1 ? having[0] : undefined;
  if (!only?.value) return { source: { kind: "local" }, settings: { personality: local.personality, personality_custom: local.personality_custom, instructions: local.instructions } };
  return { source: { kind: "instance", login: only.login }, settings: instanceSettings(only.value) };
}

/**
 * The most characters of an instance's `instructions` or `personality_custom` the system prompt
 * takes (about 4,000 tokens): an instance's text goes into every request of every session, so a
 * huge one would cost every turn, or not fit the model's context at all.
 */
export const MAX_INSTANCE_TEXT = 16_000;

/** An instance's values as the prompt takes them: none when disabled; a preset lembas does not know is none; long texts cut. */
export function instanceSettings(value: Personalization): PersonalSettings {
  if (!value.enabled) return NONE;
  const known = value.personality !== null && (value.personality === "custom" || isPreset(value.personality));
  return {
    personality: known ? value.personality : null,
    personality_custom: bounded(value.personality_custom, "personality is"),
    instructions: bounded(value.instructions, "instructions are"),
  };
}

function bounded(text: string | null, whatIs: string): string | null {
  if (text === null || text.length <= MAX_INSTANCE_TEXT) return text;
  return `${text.slice(0, MAX_INSTANCE_TEXT)}\n(cut: the instance's ${whatIs} longer than ${MAX_INSTANCE_TEXT} characters)`;
}

/** `lembas status`'s line: which settings a new session takes. */
export function sourceLine(applied: AppliedSettings): string {
  if (applied.source.kind === "local") return "personalization: config.yaml's personality and instructions apply (not one login has it available)";
  return `personalization: ${applied.source.login.name}'s (${applied.source.login.url}) applies in place of config.yaml's`;
}
