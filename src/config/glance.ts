import { existsSync, readFileSync } from "node:fs";
import { EFFORTS, type EffortName, isOneOf, MODES, type ModeName, THEME_NAMES, type ThemeSettingName } from "./key-values.ts";

/** What the terminal's first frame shows of config.yaml: its colours, and the model, mode and effort of the session. */
export type FrameSettings = { theme: ThemeSettingName; model: string | null; mode: ModeName; effort: EffortName };

/** config.yaml's defaults for these keys, as the schema (config/schema.ts) has them. */
export const FRAME_DEFAULTS: FrameSettings = { theme: "dark", model: null, mode: "edit", effort: "medium" };

/**
 * config.yaml's keys the first frame shows, read without the schema (zod and the schema's objects
 * cost more than the rest of that frame). A key that is missing or not valid is its default: the
 * file is checked whole by config/load.ts right after the frame, and refused there with its sentence.
 */
export function glanceConfig(file: string): FrameSettings {
  const raw = readYaml(file);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return FRAME_DEFAULTS;
  const keys = raw as Record<string, unknown>;
  return {
    theme: isOneOf(THEME_NAMES, keys.theme) ? keys.theme : FRAME_DEFAULTS.theme,
    model: typeof keys.model === "string" && keys.model !== "" ? keys.model : FRAME_DEFAULTS.model,
    mode: isOneOf(MODES, keys.mode) ? keys.mode : FRAME_DEFAULTS.mode,
    effort: isOneOf(EFFORTS, keys.effort) ? keys.effort : FRAME_DEFAULTS.effort,
  };
}

function readYaml(file: string): unknown {
  if (!existsSync(file)) return null;
  try {
    return Bun.YAML.parse(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}
