import { setConfigText, setSetting } from "../../app/settings.ts";
import { PERSONALITY_NAMES } from "../../config/personalities.ts";
import { loadConfig } from "../../config/load.ts";
import { getConfigKey, parseCliValue } from "../../config/save.ts";
import { EFFORTS, MODES, NOTIFY_SETTINGS, THEME_NAMES, ThemeSetting } from "../../config/schema.ts";
import { errorMessage } from "../../errors.ts";
import { cachedApplied } from "../../account/personal-source.ts";
import { isPersonalField } from "../../account/personalization.ts";
import { withoutControls } from "../../controls.ts";
import type { PersonalSettings } from "../../engine/instructions.ts";
import { listLogins } from "../../store/logins.ts";
import type { CommandHost } from "../command-host.ts";
import { say } from "./say.ts";

/**
 * /settings and /theme: the config.yaml keys a person changes most, written exactly as
 * `lembas config set` writes them (validated, atomically). The engine reads config.yaml again when
 * it changes (config/live.ts), so a change applies from the next turn; the theme and vim at once.
 * personality, personality_custom and instructions go to the instance whose personalization applies.
 */
type Setting = { key: string; about: string; values?: () => Promise<readonly string[]> | readonly string[] };

const BOOL = () => ["true", "false"];

/** The keys a session takes when it is made: the open one keeps its own. */
const NEW_SESSIONS: ReadonlySet<string> = new Set(["model", "effort", "mode"]);

const SETTINGS: readonly Setting[] = [
  { key: "model", about: "the model a new session uses", values: () => [] },
  { key: "effort", about: "a new session's reasoning effort", values: () => EFFORTS },
  { key: "mode", about: "a new session's mode", values: () => MODES },
  { key: "theme", about: "the terminal's colours", values: () => THEME_NAMES },
  { key: "tui.vim", about: "vim keys in the composer (as /vim)", values: BOOL },
  { key: "tui.notify", about: "when a turn ends out of focus: bell, desktop or off", values: () => NOTIFY_SETTINGS },
  { key: "remote.max_mode", about: "the highest mode the web UI may set", values: () => MODES },
  { key: "remote.require_trust", about: "the web UI works only in trusted folders", values: BOOL },
  { key: "remote.terminal", about: "the web UI may open a shell on this device", values: BOOL },
  { key: "remote.terminal_integration", about: "the shell's rc wrapper (bash, zsh, fish)", values: BOOL },
  { key: "remote.approval_timeout", about: "seconds an approval waits for the web UI" },
  { key: "personality", about: "how the model speaks (a preset, or custom)", values: () => PERSONALITY_NAMES },
  { key: "personality_custom", about: "the custom personality's text" },
  { key: "instructions", about: "what the model is told in every session" },
];

/** /settings: pick a key, then its value; /settings KEY VALUE sets it at once (any key config set takes). */
export async function settings(app: CommandHost, args: string): Promise<void> {
  const [key = "", ...rest] = args.split(/\s+/).filter(Boolean);
  if (key && rest.length > 0) return write(app, key, args.slice(args.indexOf(key) + key.length).trim());
  const file = app.runtime.ctx.paths.configFile;
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(file);
  } catch (error) {
    return say(app, errorMessage(error), "error");
  }
  // While an instance's personalization applies, its three keys are shown as it has them (the store's copy).
  const personal = personalShown(app, config);
  const shown = (k: string) => (personal && isPersonalField(k) ? `${show(personal.settings[k])} (${personal.from})` : show(getConfigKey(config, k)));
  let setting = key ? SETTINGS.find((s) => s.key === key) : null;
  if (key && !setting) return say(app, `/settings takes KEY VALUE, or one of ${SETTINGS.map((s) => s.key).join(", ")}`, "warn");
  setting ??= await app.pick(
    "Settings (config.yaml)",
    SETTINGS.map((s) => ({ value: s, label: s.key, description: `${shown(s.key)} · ${s.about}` })),
  );
  if (!setting) return;
  const values = setting.key === "model" ? await modelRefs(app) : await (setting.values?.() ?? []);
  if (values.length === 0) {
    app.compose(`/settings ${setting.key} `);
    return say(app, `${setting.key} is ${shown(setting.key)}: type its new value and Enter`);
  }
  const now = personal && isPersonalField(setting.key) ? show(personal.settings[setting.key]) : shown(setting.key);
  const value = await app.pick(setting.key, values.map((v) => ({ value: v, label: v, ...(v === now ? { description: "(now)" } : {}) })), Math.max(0, values.indexOf(now)));
  if (value !== null) await write(app, setting.key, value);
}

/** /theme: dark or light, for now and for the next start (config.yaml's theme). */
export async function theme(app: CommandHost, args: string): Promise<void> {
  const name = args ? ThemeSetting.safeParse(args).data : await app.pick("Theme", THEME_NAMES.map((t) => ({ value: t, label: t })), THEME_NAMES.indexOf(app.theme.name));
  if (name === null) return;
  if (name === undefined) return say(app, `/theme takes one of ${THEME_NAMES.join(", ")}`, "warn");
  app.setTheme(name);
  try {
    setConfigText(app.runtime.ctx.paths.configFile, "theme", name);
    say(app, `theme: ${name} (kept in config.yaml)`);
  } catch (error) {
    say(app, `theme: ${name} until lembas ends; config.yaml was not changed: ${errorMessage(error)}`, "warn");
  }
}

async function write(app: CommandHost, key: string, value: string): Promise<void> {
  let line: string;
  try {
    const set = await setSetting(app.runtime.ctx, key, value);
    if (set.to === "instance") return say(app, set.line);
    line = set.line;
  } catch (error) {
    return say(app, errorMessage(error), "warn");
  }
  const named = key === "theme" ? ThemeSetting.safeParse(parseCliValue(value)) : null;
  if (named?.success) app.setTheme(named.data);
  // Vim mode applies at once, as /vim does.
  const vim = key === "tui.vim" ? parseCliValue(value) : null;
  if (typeof vim === "boolean" && vim !== (app.status.vim !== null)) app.toggleVim();
  const now = key === "theme" || key === "tui.vim";
  say(app, now ? `${line} (kept in config.yaml)` : `${line} (saved in config.yaml; ${NEW_SESSIONS.has(key) ? "a new session starts with it" : "in force from the next turn"})`);
}

function personalShown(app: CommandHost, config: PersonalSettings): { settings: PersonalSettings; from: string } | null {
  try {
    const db = app.runtime.ctx.db();
    const applied = cachedApplied(db, config, listLogins(db));
    return applied.source.kind === "instance" ? { settings: applied.settings, from: `${applied.source.login.name}'s` } : null;
  } catch {
    return null;
  }
}

async function modelRefs(app: CommandHost): Promise<string[]> {
  try {
    return await app.runtime.engine.models.refs();
  } catch {
    return [];
  }
}

/** The most of a value shown in a line (an instance's instructions may be pages long). */
const SHOWN_CHARS = 120;

/** A value as one line of the screen: its controls (an instance's escapes) taken out, its breaks as spaces, long ones cut. */
export function show(value: unknown): string {
  if (value === null || value === undefined) return "not set";
  const text = withoutControls(typeof value === "object" ? JSON.stringify(value) : String(value).replace(/\s+/g, " ")).trim();
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 1)}…` : text;
}
