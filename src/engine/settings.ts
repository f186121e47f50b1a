import type { SessionBus } from "../bus/index.ts";
import { EFFORTS, isOneOf, MODES } from "../config/key-values.ts";
import type { Effort, Mode } from "../config/mode-effort.ts";
import { UserError } from "../errors.ts";
import { type Interaction, nobody } from "./interaction.ts";
import { cappedMode } from "./mode-cap.ts";
import { MODE_ORDER } from "./permissions.ts";
import type { ModelSource } from "../model/resolved.ts";

/** The model refs the settings tool lists: what the source said last, asked again at each turn's start. */
export class KnownModels {
  list: string[] = [];

  refresh(models: Pick<ModelSource, "refs">): void {
    models.refs().then(
      (refs) => void (this.list = refs),
      () => {
        // the settings tool lists what it last knew
      },
    );
  }
}

export type SettingsChange = { model?: string; effort?: string; mode?: string };

/** What the settings tool reads and changes in a session. */
export type SettingsHost = {
  readonly id: string;
  readonly mode: Mode;
  readonly maxMode: Mode;
  readonly bus: SessionBus;
  readonly interaction: Interaction | null;
  configure(change: { model?: string; effort?: Effort }): Promise<{ model: string | null; effort: Effort }>;
  setMode(requested: Mode): Mode;
};

/**
 * The settings tool on a session: model and effort change at once; a higher mode is asked for
 * first. A mode is lowered to the session's limit and to the turn's (`turnCap`: a web prompt's in
 * a terminal's shared session, remote.max_mode), whoever approves it.
 */
export async function applySettings(session: SettingsHost, change: SettingsChange, callId: string, signal: AbortSignal, turnCap?: Mode): Promise<string> {
  const said: string[] = [];
  const newEffort = change.effort;
  const newMode = change.mode;
  if (newEffort !== undefined && !isOneOf(EFFORTS, newEffort)) throw new UserError(`effort must be one of ${EFFORTS.join(", ")}`);
  if (newMode !== undefined && !isOneOf(MODES, newMode)) throw new UserError(`mode must be one of ${MODES.join(", ")}`);
  if (change.model !== undefined || newEffort !== undefined) {
    const result = await session.configure({
      ...(change.model !== undefined ? { model: change.model } : {}),
      ...(newEffort !== undefined ? { effort: newEffort } : {}),
    });
    if (change.model !== undefined) session.bus.emit({ type: "setting", key: "model", value: result.model });
    if (change.effort !== undefined) session.bus.emit({ type: "setting", key: "effort", value: result.effort });
    said.push(`model ${result.model ?? "(default)"}, effort ${result.effort}`);
  }
  if (newMode !== undefined) {
    const requested = newMode;
    const capped = cappedMode(requested, session.maxMode, turnCap);
    // A limit never turns a request to raise (or keep) the mode into lowering it.
    const wanted = rank(requested) >= rank(session.mode) && rank(capped) < rank(session.mode) ? session.mode : capped;
    if (rank(wanted) > rank(session.mode)) {
      const answer = await (session.interaction ?? nobody("nobody can approve it")).permission(
        {
          sessionId: session.id,
          callId,
          toolName: "settings",
          title: `Switch to ${wanted} mode`,
          kind: "switch_mode",
          rawInput: change,
          reason: `the model asks to raise the mode from ${session.mode} to ${wanted}`,
          always: null,
        },
        signal,
      );
      if (answer.outcome === "deny") return [...said, `the person kept ${session.mode} mode${answer.feedback ? `: ${answer.feedback}` : ""}`].join("; ");
    }
    const mode = session.setMode(wanted);
    session.bus.emit({ type: "setting", key: "mode", value: mode });
    said.push(`mode ${mode}${mode !== change.mode ? ` (lowered from ${change.mode} by the device's limits)` : ""}`);
  }
  return said.join("; ") || "nothing changed";
}

const rank = (mode: Mode): number => MODE_ORDER.indexOf(mode);
