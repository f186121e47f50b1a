import { visibleLine } from "../controls.ts";
import { VERSION } from "../version.ts";
import { Editor, ProcessTerminal, Text } from "./kit.ts";
import { PacedScreen } from "./paced-screen.ts";
import { StatusBar, type StatusFacts } from "./status-bar.ts";
import { editorTheme, makeTheme, type Theme, type ThemeName } from "./theme.ts";
import type { Transcript } from "./transcript.ts";

/** Smaller than this, the screen says so in one line instead of drawing. */
export const MIN_COLUMNS = 40;
export const MIN_ROWS = 10;

/** The screen's first line: the version and the directory, whose name may carry control characters (shown, not obeyed). */
export function headerText(cwd: string): string {
  return `lembas ${VERSION} · ${visibleLine(cwd)}`;
}

/**
 * What the app takes over from the first frame: the screen as drawn, and what it shows; with
 * `history`, the transcript of the session it resumes, its history drawn already (resumed-history.ts).
 */
export type FrameParts = { screen: PacedScreen; theme: Theme; header: Text; status: StatusBar; history: { sessionId: string; transcript: Transcript } | null };

/**
 * The process's terminal, whose keys wait, in the order typed, until the app that reads them is
 * loaded: the first frame is up before the app's modules are, and nothing typed meanwhile is lost.
 */
class HeldKeysTerminal extends ProcessTerminal {
  private held: string[] | null = [];
  private deliver: (data: string) => void = () => {};

  override start(onInput: (data: string) => void, onResize: () => void): void {
    this.deliver = onInput;
    super.start((data) => {
      if (this.held) this.held.push(data);
      else this.deliver(data);
    }, onResize);
  }

  /** The keys held so far reach the screen's reader, then every key as it comes. */
  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const data of held) this.deliver(data);
  }
}

/**
 * The terminal's first frame, drawn from a few light modules before the app's own are loaded (the
 * engine, the store's sessions, every command): the header, the empty transcript, the composer and
 * the status bar with the model, mode and effort the session will have. The app then takes the
 * screen over (TuiApp) and draws the same, and the keys typed meanwhile go to it, in order.
 */
export class FirstFrame {
  private readonly terminal = new HeldKeysTerminal();
  private readonly parts: FrameParts;
  private readonly composer: Editor | null = null;
  private taken = false;

  constructor(cwd: string, theme: ThemeName, facts: StatusFacts) {
    const screen = new PacedScreen(this.terminal);
    const shown = makeTheme(theme);
    const header = new Text(shown.dim(headerText(cwd)), 0, 0);
    const status = new StatusBar(shown);
    status.reset(facts);
    this.parts = { screen, theme: shown, header, status, history: null };
    const { columns, rows } = this.terminal;
    if (columns < MIN_COLUMNS || rows < MIN_ROWS) {
      screen.addChild(new Text(`Too small: lembas needs at least ${MIN_COLUMNS}×${MIN_ROWS} (this is ${columns}×${rows})`, 0, 0));
    } else {
      // The composer as the app draws it empty; the transcript is empty: it draws nothing.
      const composer = new Editor(screen, editorTheme(shown));
      for (const part of [header, composer, status]) screen.addChild(part);
      screen.setFocus(composer);
      this.composer = composer;
    }
    screen.start();
    // Drawn now, before the app's modules are loaded on this same thread.
    screen.renderNow();
  }

  get theme(): Theme {
    return this.parts.theme;
  }

  /**
   * Draws the resumed session's transcript (its history in it) between the header and the
   * composer, at once: its lines reach the terminal's scrollback before the app's modules load.
   * False on a screen too small to draw on.
   */
  showHistory(sessionId: string, transcript: Transcript): boolean {
    const { screen, header, status } = this.parts;
    if (!this.composer) return false;
    screen.clear();
    for (const part of [header, transcript, this.composer, status]) screen.addChild(part);
    this.parts.history = { sessionId, transcript };
    screen.renderNow();
    return true;
  }

  /** The app takes the screen: it lays it out again with its own parts, and calls releaseKeys once it can read them. */
  take(): FrameParts {
    this.taken = true;
    return this.parts;
  }

  /** The keys typed since the first frame reach the app's reader (its listeners set), in order; once is enough. */
  releaseKeys(): void {
    this.terminal.release();
  }

  /**
   * Ends the screen when the app never took it (it could not be loaded, config.yaml was refused):
   * the frame's lines are erased, so that what is said next stands where the frame was.
   */
  close(): void {
    if (this.taken) return;
    const { screen } = this.parts;
    screen.clear();
    screen.renderNow();
    screen.stop();
  }
}
