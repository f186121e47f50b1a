/**
 * The personalities lembas knows: config.yaml's (or the instance's) `personality` names one of
 * these, or "custom" for `personality_custom`'s text. A name lembas does not know is no
 * personality at all, never its own text said to the model.
 */
export const PRESETS = {
  concise:
    "Be brief. Answer in as few words as the task allows: no preamble, no recap of what you were asked, no closing offers. Prefer a command, a diff or a short list to prose.",
  friendly:
    "Be warm and encouraging without padding. Say plainly what you did and why, acknowledge what the person got right, and explain a mistake without blame.",
  teacher:
    "Explain as you go. When you change something, say the idea behind it in a sentence or two and name the concept, so the person learns it; offer the next thing worth reading when it helps.",
  pragmatic:
    "Favour what works now over what is elegant later. Make the smallest change that solves the problem, say the trade-off you took, and leave refactors for when they are asked for.",
  skeptical:
    "Question assumptions, the person's and your own. Before you change code, say what could make the plan wrong; after, say how you checked it and what you did not check.",
} as const satisfies Record<string, string>;

export type PresetName = keyof typeof PRESETS;

/** Every value `personality` takes: the presets, then "custom". */
export const PERSONALITY_NAMES: readonly string[] = [...Object.keys(PRESETS), "custom"];

export function isPreset(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}

/** What the model is told of its personality: a preset's paragraph, the custom text, or nothing. */
export function personalityText(name: string | null, custom: string | null): string | null {
  if (name === null) return null;
  if (name === "custom") return custom?.trim() ? custom : null;
  return isPreset(name) ? PRESETS[name] : null;
}

/** One line a preset for help pages and pickers: "concise: Be brief. …". */
export function presetLines(): string[] {
  return [...Object.entries(PRESETS).map(([name, text]) => `${name}: ${text}`), "custom: the text of personality_custom"];
}
