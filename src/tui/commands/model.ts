import { EFFORTS, Effort, MODES, Mode } from "../../config/schema.ts";
import { errorMessage } from "../../errors.ts";
import type { CommandHost } from "../command-host.ts";
import { say } from "./say.ts";

/**
 * /model, /effort and /mode: the session's model, reasoning effort and mode, picked or given as
 * the argument. A change goes through the session, whose event the transcript and status bar show.
 */
export async function chooseModel(app: CommandHost, args: string): Promise<void> {
  const session = app.runtime.session;
  let refs: string[];
  try {
    refs = await app.runtime.engine.models.refs();
  } catch (error) {
    if (!args) return say(app, `the models could not be listed: ${errorMessage(error)}`, "error");
    refs = [];
  }
  const current = session.model ?? app.runtime.defaultModel;
  const wanted = args || (await pickModel(app, refs, current));
  if (!wanted) return;
  let ref: string;
  try {
    ref = (await app.runtime.engine.models.resolve(wanted)).ref;
  } catch (error) {
    return say(app, `${errorMessage(error)}${accepted(refs)}`, "warn");
  }
  // A ref a connection would take although its list does not name it is refused: its requests would fail.
  if (refs.length > 0 && !refs.includes(ref)) return say(app, `/model takes a model this device has${accepted(refs)}`, "warn");
  if (ref === session.model) return say(app, `the model is ${ref} already`);
  try {
    await session.configure({ model: ref });
  } catch (error) {
    say(app, errorMessage(error), "error");
  }
}

function accepted(refs: readonly string[]): string {
  if (refs.length === 0) return "";
  return ` (one of ${refs.slice(0, 8).join(", ")}${refs.length > 8 ? ", …; /model lists them all" : ""})`;
}

function pickModel(app: CommandHost, refs: readonly string[], current: string | null): Promise<string | null> {
  if (refs.length === 0) {
    say(app, "this device has no model to pick: lembas login URL or a connection in config.yaml gives it some", "warn");
    return Promise.resolve(null);
  }
  const items = refs.map((ref) => ({ value: ref, label: ref, ...(ref === current ? { description: "(now)" } : {}) }));
  return app.pick("Model", items, Math.max(0, refs.indexOf(current ?? "")));
}

export async function chooseEffort(app: CommandHost, args: string): Promise<void> {
  const session = app.runtime.session;
  const effort = args ? Effort.safeParse(args).data : await app.pick("Reasoning effort", EFFORTS.map((e) => ({ value: e, label: e })), EFFORTS.indexOf(session.effort));
  if (effort === null) return;
  if (effort === undefined) return say(app, `/effort takes one of ${EFFORTS.join(", ")}`, "warn");
  if (effort === session.effort) return say(app, `effort is ${effort} already`);
  try {
    await session.configure({ effort });
  } catch (error) {
    say(app, errorMessage(error), "error");
  }
}

const MODE_NOTES: Record<Mode, string> = {
  plan: "reads and plans, changes nothing",
  manual: "asks before every change and command",
  edit: "edits files, asks before commands",
  auto: "edits and runs commands without asking",
};

export async function chooseMode(app: CommandHost, args: string): Promise<void> {
  const session = app.runtime.session;
  const mode = args ? Mode.safeParse(args).data : await app.pick("Mode", MODES.map((m) => ({ value: m, label: m, description: MODE_NOTES[m] })), MODES.indexOf(session.mode));
  if (mode === null) return;
  if (mode === undefined) return say(app, `/mode takes one of ${MODES.join(", ")}`, "warn");
  if (mode === session.mode) return say(app, `the mode is ${mode} already`);
  const now = app.transcript.byPerson(() => session.setMode(mode));
  if (now !== mode) say(app, `this session goes no higher than ${now}`, "warn");
}
