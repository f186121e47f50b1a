import type { Mode } from "../config/schema.ts";
import { MODE_ORDER } from "./permissions.ts";

/*
 * One rule for how high a mode goes. A session has a cap (remote.max_mode for a session the web
 * made, auto for the device's own), and so has a turn sent from the web (remote.max_mode), also in
 * a terminal's session that runs above it.
 * - A turn works in the session's mode lowered to the turn's cap: turnMode.
 * - A mode the session is put in is lowered to every cap that holds where the change comes from:
 *   the session's own always; the web's for what the web changes (set_mode, a command's mode, a
 *   plan or a raise the web approves); the turn's for what a turn changes (the settings tool, a
 *   plan approved), whoever approves it: cappedMode.
 */

/** The mode a turn works in: the session's, lowered to the turn's cap when it has one (null: none). */
export function turnMode(sessionMode: Mode, turnCap: Mode | null): Mode {
  return turnCap === null ? sessionMode : cappedMode(sessionMode, turnCap);
}

/** A mode asked for, lowered to the lowest of the caps given (an absent one caps nothing). */
export function cappedMode(requested: Mode, ...caps: readonly (Mode | null | undefined)[]): Mode {
  let mode = requested;
  for (const cap of caps) {
    if (cap && MODE_ORDER.indexOf(cap) < MODE_ORDER.indexOf(mode)) mode = cap;
  }
  return mode;
}
