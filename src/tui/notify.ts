import type { Config, NotifySetting } from "../config/schema.ts";
import type { Card } from "./cards.ts";

/** Focus reporting (CSI ?1004): the terminal sends FOCUS_IN and FOCUS_OUT as its window gains and loses focus. */
export const FOCUS_REPORTING_ON = "\x1b[?1004h";
export const FOCUS_REPORTING_OFF = "\x1b[?1004l";
const FOCUS_IN = "\x1b[I";
const FOCUS_OUT = "\x1b[O";
const BELL = "\x07";

/** The escape a terminal shows as a desktop notification: iTerm2's OSC 9, or rxvt's OSC 777 "notify". */
export type DesktopEscape = "osc9" | "osc777";

type Env = Record<string, string | undefined>;

/**
 * The desktop notification the terminal says it takes, by what it sets in the environment; null
 * for any other (one that ignores the escape would be fine, one that reads OSC 9 as something
 * else — ConEmu and Windows Terminal take OSC 9;N as commands — would not).
 */
export function desktopEscape(env: Env): DesktopEscape | null {
  const program = env.TERM_PROGRAM ?? "";
  const term = env.TERM ?? "";
  if (program === "iTerm.app" || env.LC_TERMINAL === "iTerm2") return "osc9";
  // WEZTERM_PANE and GHOSTTY_RESOURCES_DIR still name the terminal inside tmux, whose TERM_PROGRAM is tmux's.
  if (program === "WezTerm" || env.WEZTERM_PANE || program === "ghostty" || term === "xterm-ghostty" || env.GHOSTTY_RESOURCES_DIR) return "osc9";
  if (term === "xterm-kitty" || env.KITTY_WINDOW_ID) return "osc9";
  if (term.startsWith("rxvt-unicode") || term.startsWith("foot")) return "osc777";
  return null;
}

/** Text as an OSC may carry it: no control character ends it early, no `;` splits a field, not too long. */
function oscText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f;]/g, " ").slice(0, 200);
}

/**
 * An escape for the terminal tmux runs in, through tmux's passthrough (DCS tmux; … ST, each ESC
 * doubled): tmux keeps an OSC 9 or 777 to itself otherwise, and only the bell reached the person.
 * tmux lets it through with `allow-passthrough on`.
 */
export function tmuxPassthrough(escape: string): string {
  return `\x1bPtmux;${escape.replaceAll("\x1b", "\x1b\x1b")}\x1b\\`;
}

/**
 * What to write for a notification: the bell, and with `desktop` the terminal's own notification
 * escape where it takes one (through tmux's passthrough inside tmux). Empty with `off`.
 */
export function notificationBytes(setting: NotifySetting, escape: DesktopEscape | null, body: string, inTmux = false): string {
  if (setting === "off") return "";
  if (setting === "bell" || escape === null) return BELL;
  const text = oscText(body);
  const desktop = escape === "osc9" ? `\x1b]9;${text}\x07` : `\x1b]777;notify;lembas;${text}\x07`;
  return `${inTmux ? tmuxPassthrough(desktop) : desktop}${BELL}`;
}

/**
 * Tells the person, when the terminal is not in front, that a turn ended or a card waits. Focus
 * is known once the terminal reports a change (CSI ?1004); until then (a terminal without focus
 * reporting, or one whose focus never changed) it rings the bell alone, which a terminal in front
 * shows at most as a flash, and a desktop notification waits for a report that focus is away.
 */
export class Notifier {
  private focus: "in" | "out" | "unknown" = "unknown";
  private readonly escape: DesktopEscape | null;
  private readonly inTmux: boolean;

  /** `env`: the terminal's environment, which says what escape it takes and whether it is tmux's pane. */
  constructor(
    private readonly write: (data: string) => void,
    private readonly setting: () => NotifySetting,
    env: Env,
  ) {
    this.escape = desktopEscape(env);
    this.inTmux = Boolean(env.TMUX);
  }

  /** Asks the terminal to report focus changes (again after a suspend: the terminal was handed back). */
  start(): void {
    this.write(FOCUS_REPORTING_ON);
  }

  stop(): void {
    this.write(FOCUS_REPORTING_OFF);
  }

  /** Reads a focus report; whether the input was one (it goes no further then). */
  input(data: string): boolean {
    if (data === FOCUS_IN) this.focus = "in";
    else if (data === FOCUS_OUT) this.focus = "out";
    else return false;
    return true;
  }

  notify(body: string): void {
    if (this.focus === "in") return;
    const setting = this.setting();
    const bytes = this.focus === "out" ? notificationBytes(setting, this.escape, body, this.inTmux) : notificationBytes(setting === "off" ? "off" : "bell", null, body);
    if (bytes) this.write(bytes);
  }
}

/** What a notification says of a card waiting (the Notification hook's words for the same moment). */
export function cardNotice(card: Card): string {
  if (card.kind === "permission") return `lembas needs your permission: ${card.request.title}`;
  if (card.kind === "question") return `lembas has ${card.questions.length === 1 ? "a question" : `${card.questions.length} questions`} for you`;
  return `lembas has a plan for you to approve: ${card.path}`;
}

/** config.yaml's tui.notify; a config that cannot be read here was said already where it is read. */
export function configuredNotify(config: () => Config): NotifySetting {
  try {
    return config().tui.notify;
  } catch {
    return "desktop";
  }
}
