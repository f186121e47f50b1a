import type { CommandHost } from "./command-host.ts";
import type { Composer } from "./composer.ts";
import { type KeySurface, nextMode } from "./keys.ts";
import { openPromptSearch } from "./prompt-search.ts";
import { interruptAsked, quitAsked } from "./quit-ask.ts";
import type { ShellMode } from "./shell-mode.ts";

/** What of the app's own parts the keys reach, beside what every command reaches. */
export type KeyedParts = {
  /** What has the panel: a card, something else (a picker, a form), or nothing. */
  panel(): "card" | "other" | null;
  editor: Composer;
  shell: ShellMode;
  suspend(): void;
  /** Opens the rewind picker. */
  rewind(): void;
};

/** The terminal's screen as the keys that mean the same wherever focus is (keys.ts) act on it. */
export function appKeySurface(app: CommandHost, parts: KeyedParts): KeySurface {
  const { editor, shell } = parts;
  const busy = () => app.runtime.hasSession && app.runtime.session.busy;
  const interrupt = () => {
    if (!shell.stop()) app.runtime.cancel();
  };
  return {
    panel: parts.panel,
    composerText: () => editor.getText(),
    vimInsert: () => editor.vimMode === "insert",
    clearComposer: () => {
      // Cleared, not lost: ↑ brings it back, as Codex has it.
      editor.addToHistory(editor.getExpandedText());
      editor.setText("");
      app.render();
    },
    completing: () => editor.capturesViewportInput,
    busy: () => busy() || shell.busy,
    interrupt,
    interruptAsked: () => {
      if (!shell.stop()) void interruptAsked(app, interrupt);
    },
    quit: () => void quitAsked(app),
    cycleMode: () => {
      if (!app.runtime.hasSession) return;
      const session = app.runtime.session;
      app.transcript.byPerson(() => session.setMode(nextMode(session.mode)));
    },
    suspend: () => parts.suspend(),
    rewind: () => {
      if (app.runtime.hasSession) parts.rewind();
    },
    searchPrompts: () => openPromptSearch(app, editor.earlier()),
    say: (message) => {
      app.status.say(message);
      app.render();
    },
  };
}
