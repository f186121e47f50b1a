import type { Component } from "./kit.ts";
import type { Opening, SessionChoice, TuiRuntime } from "./runtime.ts";
import type { StatusBar } from "./status-bar.ts";
import type { Theme, ThemeName } from "./theme.ts";
import type { Transcript } from "./transcript.ts";

/**
 * The screen's parts as the terminal's own commands and forms see them. The app (src/tui/app.ts)
 * is one; declared below both, so that the commands it runs never import it back.
 */
export type CommandHost = {
  runtime: TuiRuntime;
  transcript: Transcript;
  status: StatusBar;
  theme: Theme;
  setTheme(name: ThemeName): void;
  /** Shows a list to pick from; null when the person closes it. */
  pick<T>(title: string, items: readonly { value: T; label: string; description?: string }[], selected?: number): Promise<T | null>;
  /** Shows a component (a form) in the panel, with the keys, until the function returned is called. */
  present(component: Component): () => void;
  switchTo(opening: Opening, choice?: SessionChoice): Promise<void>;
  /** Puts text in the composer for the person to finish (a command waiting for its argument). */
  compose(text: string): void;
  /** Vim mode in the composer on or off (/vim); whether it is now on. */
  toggleVim(): boolean;
  /** Writes straight to the terminal (an OSC 52 copy). */
  writeTerminal(data: string): void;
  quit(): void;
  render(): void;
};

/**
 * One of the terminal's own commands: the screens and settings only a terminal has (the list is
 * src/tui/commands.ts).
 */
export type TuiCommand = {
  name: string;
  aliases?: string[];
  description: string;
  /** The argument it takes, as help shows it; a command without one refuses an argument in one line. */
  hint?: string;
  run(app: CommandHost, args: string): void | Promise<void>;
};
