import { loadCommands } from "../project/commands.ts";
import type { CommandHost, TuiCommand } from "./command-host.ts";
import { copy } from "./commands/copy.ts";
import { exportTranscript } from "./commands/export.ts";
import { LOGIN_COMMANDS } from "./commands/login.ts";
import { chooseEffort, chooseMode, chooseModel } from "./commands/model.ts";
import { say } from "./commands/say.ts";
import { deleteCurrent, rename, resume, sessions } from "./commands/sessions.ts";
import { settings, theme } from "./commands/settings.ts";
import { share, unshare } from "./commands/share.ts";
import { doctor, status } from "./commands/status.ts";
import { usage } from "./commands/usage.ts";
import { hooks } from "./commands/hooks.ts";
import { agents } from "./commands/agents.ts";
import { permissions } from "./commands/permissions.ts";
import { fork, rewind } from "./commands/turn-pickers.ts";
import { quitAsked } from "./quit-ask.ts";
import { unknownCommand } from "./unknown-command.ts";
import { vim } from "./commands/vim.ts";
import { help } from "./commands/help.ts";

/**
 * The terminal's own commands: the screens and settings only a terminal has. Their names are
 * reserved in src/project/commands.ts, so a custom command or skill never shadows them; the shared
 * commands (compact, plan, undo, review, …) go to the session as on the link.
 */
export const TUI_COMMAND_LIST: readonly TuiCommand[] = [
  { name: "new", aliases: ["clear"], description: "Start a new session in this directory", run: (app) => app.switchTo({ kind: "new" }) },
  { name: "resume", description: "Resume a session of this project: /resume ID, or pick one", hint: "[id]", run: resume },
  { name: "sessions", description: "This project's sessions (or all): resume, rename or delete one", hint: "[all | resume|rename|delete ID]", run: sessions },
  { name: "rename", description: "Rename this session", hint: "<title>", run: rename },
  { name: "rewind", description: "Go back to before a turn: its code and the conversation, or either (Esc Esc)", hint: "[n [both|conversation|code]]", run: rewind },
  { name: "fork", description: "A new session with this one's conversation through a turn (or all of it)", hint: "[n]", run: fork },
  { name: "delete", description: "Delete this session, then start a new one", run: deleteCurrent },
  { name: "model", description: "The session's model: /model REF, or pick one", hint: "[ref]", run: chooseModel },
  { name: "effort", description: "The reasoning effort: off, low, medium or high", hint: "[level]", run: chooseEffort },
  { name: "mode", description: "The mode: plan, manual, edit or auto", hint: "[mode]", run: chooseMode },
  { name: "settings", description: "Change config.yaml: pick a key, or /settings KEY VALUE", hint: "[key value]", run: settings },
  { name: "theme", description: "The colours: dark or light", hint: "[dark|light]", run: theme },
  { name: "vim", description: "Vim keys in the composer on or off (kept in config.yaml as tui.vim)", run: vim },
  { name: "copy", description: "Copy the last answer to the clipboard", run: copy },
  { name: "export", description: "Write this session as Markdown (default ./lembas-<id>.md)", hint: "[path]", run: exportTranscript },
  { name: "share", description: "Share this session with the web through the service, even outside remote.roots", run: share },
  { name: "unshare", description: "Stop sharing this session (until /share)", run: unshare },
  { name: "status", description: "This session, the logins, their links and the service", run: status },
  { name: "usage", description: "Each login's plan, balance, this month's and this device's spend, and its spending windows", run: usage },
  ...LOGIN_COMMANDS,
  { name: "agents", description: "The custom agents the task tool offers: where each is written, its tools in this mode and its model", run: agents },
  { name: "hooks", description: "The hooks this project's sessions run (config.yaml's, the project's) and where each is written", run: hooks },
  { name: "permissions", description: "The rules that allow, ask or deny calls: where each holds, where it comes from, when it expires; /permissions revoke ID takes back a kept one", hint: "[revoke ID]", run: permissions },
  { name: "doctor", description: "Check the config, the models, the logins, the service and the sandbox", run: doctor },
  { name: "help", description: "The terminal's keys and commands; /help NAME: one command", hint: "[command]", run: (app, args) => help(app, args, TUI_COMMAND_LIST) },
  { name: "quit", aliases: ["exit"], description: "Quit (the session stays; lembas -r resumes it)", run: quitAsked },
];

/** The terminal command a typed line is, with its argument; null when it is not one. */
export function findTuiCommand(text: string): { command: TuiCommand; args: string } | null {
  const match = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match?.[1]) return null;
  const name = match[1];
  const found = TUI_COMMAND_LIST.find((c) => c.name === name || c.aliases?.includes(name));
  if (!found) return null;
  const args = (match[2] ?? "").trim();
  if (args && !found.hint) return { command: { ...found, run: (app) => say(app, `/${found.name} takes no argument`, "warn") }, args };
  return { command: found, args };
}

/**
 * What the terminal says of a typed `/word` that is no command here (the terminal's, the
 * session's, a custom one or a skill) and no path that is there; null for anything to send on.
 */
export function unknownCommandLine(app: CommandHost, text: string): string | null {
  const { root } = app.runtime.session;
  const shared = loadCommands({ root, configDir: app.runtime.ctx.paths.configDir, protectedPaths: app.runtime.engine.protectedPaths }).all.map((c) => c.name);
  const own = TUI_COMMAND_LIST.flatMap((c) => [c.name, ...(c.aliases ?? [])]);
  return unknownCommand(text, [...own, ...shared]);
}
