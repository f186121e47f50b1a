// The names some of config.yaml's keys take, without zod: what runs before the terminal's first
// frame (its arguments, config/glance.ts) reads them without loading the schema.

export const MODES = ["plan", "manual", "edit", "auto"] as const;
export type ModeName = (typeof MODES)[number];

export const EFFORTS = ["off", "low", "medium", "high"] as const;
export type EffortName = (typeof EFFORTS)[number];

/** The APIs a connection may speak (config.yaml's `api`; model/apis.ts decides when it is unset). */
export const MODEL_APIS = ["chat", "messages", "responses"] as const;
export type ModelApiName = (typeof MODEL_APIS)[number];

/** The terminal's colours (lembas in a terminal; /theme changes it). */
export const THEME_NAMES = ["dark", "light"] as const;
export type ThemeSettingName = (typeof THEME_NAMES)[number];

/** Whether `value` is one of `names`. */
export function isOneOf<T extends string>(names: readonly T[], value: unknown): value is T {
  return typeof value === "string" && (names as readonly string[]).includes(value);
}
