import { z } from "zod";
import { lazily } from "../lazy.ts";
import { EFFORTS, isOneOf, MODES } from "../config/key-values.ts";
import { cappedMode } from "../engine/mode-cap.ts";
import type { Session } from "../engine/session.ts";
import { errorMessage } from "../errors.ts";
import type { acp } from "../rpc/agent.ts";
import { type AgentHost, invalid } from "./host.ts";
import { modeState } from "./modes.ts";

export const SetConfigOption = lazily(() => z.looseObject({ sessionId: z.string(), configId: z.string(), value: z.unknown() }));

const IDS = ["mode", "model", "effort"] as const;

/**
 * The session's settings an editor may change, as ACP's session config options: the mode, the
 * model (every ref this device can use) and the effort. A model list that cannot be had leaves
 * the model's option with the session's own model alone.
 */
export async function configOptions(session: Session, host: AgentHost): Promise<acp.SessionConfigOption[]> {
  const current = await currentModel(session, host);
  const refs = await host.engine.models.refs().catch(() => [] as string[]);
  const models = current && !refs.includes(current) ? [current, ...refs] : refs;
  const modes = modeState(session.mode, host.maxMode);
  const options: acp.SessionConfigOption[] = [
    {
      id: "mode",
      name: "Mode",
      category: "mode",
      type: "select",
      currentValue: session.mode,
      options: modes.availableModes.map((m) => ({ value: m.id, name: m.name, description: m.description })),
    },
  ];
  if (current) options.push({ id: "model", name: "Model", category: "model", type: "select", currentValue: current, options: models.map((ref) => ({ value: ref, name: ref })) });
  options.push({
    id: "effort",
    name: "Effort",
    category: "thought_level",
    type: "select",
    currentValue: session.effort,
    options: EFFORTS.map((e) => ({ value: e, name: e })),
  });
  return options;
}

/** Applies one session/set_config_option; a value it cannot take is -32602 with a sentence. */
export async function setConfigOption(session: Session, host: AgentHost, configId: string, value: unknown): Promise<void> {
  if (configId === "mode") {
    if (!isOneOf(MODES, value)) throw invalid(`the mode must be one of ${MODES.join(", ")}`);
    session.setMode(cappedMode(value, host.maxMode));
    return;
  }
  if (configId === "effort") {
    if (!isOneOf(EFFORTS, value)) throw invalid(`the effort must be one of ${EFFORTS.join(", ")}`);
    await session.configure({ effort: value });
    return;
  }
  if (configId === "model") {
    if (typeof value !== "string" || !value) throw invalid("the model must be a model ref, as `lembas models` lists them");
    try {
      await session.configure({ model: value });
    } catch (error) {
      throw invalid(errorMessage(error));
    }
    return;
  }
  throw invalid(`there is no config option ${JSON.stringify(configId)}: the options are ${IDS.join(", ")}`);
}

async function currentModel(session: Session, host: AgentHost): Promise<string | null> {
  try {
    return (await host.engine.models.resolve(session.model)).ref;
  } catch {
    return session.model;
  }
}

/** Tells the client the options again whenever the mode, the model or the effort changes (a command, the model's settings tool, another client). */
export function watchSettings(session: Session, host: AgentHost, send: (update: { sessionUpdate: "config_option_update"; configOptions: acp.SessionConfigOption[] }) => void): () => void {
  return session.bus.subscribe((event) => {
    if (event.type !== "mode" && event.type !== "model") return;
    void configOptions(session, host).then((options) => send({ sessionUpdate: "config_option_update", configOptions: options }));
  });
}
