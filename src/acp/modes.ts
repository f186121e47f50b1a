import type { Mode } from "../config/schema.ts";
import { MODE_ORDER } from "../engine/permissions.ts";

const DESCRIPTIONS: Record<Mode, { name: string; description: string }> = {
  plan: { name: "Plan", description: "Read and search only, then propose a plan" },
  manual: { name: "Manual", description: "Every file change and every command asks first" },
  edit: { name: "Edit", description: "File changes in the project go ahead; commands ask" },
  auto: { name: "Auto", description: "File changes and commands in the project go ahead" },
};

/** ACP's mode state: the modes up to the limit, and the current one. */
export function modeState(current: Mode, max: Mode) {
  const allowed = MODE_ORDER.slice(0, MODE_ORDER.indexOf(max) + 1);
  return {
    currentModeId: current,
    availableModes: allowed.map((id) => ({ id, ...DESCRIPTIONS[id] })),
  };
}
