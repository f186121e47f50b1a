import type { AppSurface } from "./app.ts";
import { LOGIN_COMMANDS } from "./commands/login.ts";

/**
 * The terminal's own commands: the screens and settings only a terminal has. Their names are
 * reserved in src/project/commands.ts, so a custom command or skill never shadows them; the shared
 * commands (compact, plan, undo, review, …) go to the session as on the link.
 */
export type TuiCommand = {
  name: string;
  aliases?: string[];
  description: string;
  hint?: string;
  run(app: AppSurface, args: string): void | Promise<void>;
};

export const TUI_COMMAND_LIST: readonly TuiCommand[] = [
  {
    name: "new",
    aliases: ["clear"],
    description: "Start a new session in this directory",
    run: (app) => app.switchTo({ kind: "new" }),
  },
  {
    name: "resume",
    description: "Resume a session of this project: /resume ID, or pick one",
    hint: "[id]",
    async run(app, args) {
      const id = args || (await pickSession(app));
      if (id) await app.switchTo({ kind: "resume", id });
    },
  },
  {
    name: "help",
    description: "The terminal's keys and commands",
    run(app) {
      const lines = [
        "Enter sends · Shift+Enter, Alt+Enter or \\ then Enter: a new line · ↑↓ earlier prompts",
        "Esc interrupts the turn · Ctrl-C clears, twice quits · Ctrl-D quits · Shift+Tab changes the mode · Ctrl-Z suspends",
        "While a turn runs, Enter gives the text to the model at its next step.",
        ...TUI_COMMAND_LIST.map((c) => `/${c.name}${c.hint ? ` ${c.hint}` : ""} — ${c.description}`),
      ];
      for (const line of lines) app.transcript.line(line);
    },
  },
  ...LOGIN_COMMANDS,
  {
    name: "quit",
    aliases: ["exit"],
    description: "Quit (the session stays; lembas -r resumes it)",
    run: (app) => app.quit(),
  },
];

/** The terminal command a typed line is, with its argument; null when it is not one. */
export function findTuiCommand(text: string): { command: TuiCommand; args: string } | null {
  const match = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match?.[1]) return null;
  const name = match[1];
  const command = TUI_COMMAND_LIST.find((c) => c.name === name || c.aliases?.includes(name));
  return command ? { command, args: (match[2] ?? "").trim() } : null;
}

/** A session of this project to move to, picked from a list (newest first); null when closed. */
async function pickSession(app: AppSurface): Promise<string | null> {
  const here = app.runtime.hasSession ? app.runtime.session.id : null;
  const rows = app.runtime.sessions("project").filter((row) => row.id !== here);
  if (rows.length === 0) {
    app.transcript.line("there is no other session in this project");
    app.render();
    return null;
  }
  return app.pick(
    "Resume a session",
    rows.map((row) => ({ value: row.id, label: row.title || "(untitled)", description: `${ago(row.updatedAt)} · ${row.id}` })),
  );
}

function ago(at: number): string {
  const s = Math.max(0, Math.round((Date.now() - at) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86_400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86_400)}d ago`;
}
