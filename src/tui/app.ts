import type { Session } from "../engine/session.ts";
import { errorMessage } from "../errors.ts";
import { CardViews } from "./card-views.ts";
import { GlobalKeys } from "./keys.ts";
import { appKeySurface } from "./app-keys.ts";
import type { CommandHost } from "./command-host.ts";
import { findTuiCommand, unknownCommandLine } from "./commands.ts";
import { sessionSources } from "./completion.ts";
import { Composer } from "./composer.ts";
import { type FirstFrame, headerText, MIN_COLUMNS, MIN_ROWS } from "./first-frame.ts";
import { type Component, Text, type TUI } from "./kit.ts";
import { PasteFolds } from "./paste-folds.ts";
import { Panel, Picker } from "./panel.ts";
import { projectPrompts } from "./prompt-history.ts";
import { PromptSender } from "./prompt-sender.ts";
import type { Opening } from "./opening.ts";
import type { RuntimeChange, SessionChoice, TuiRuntime } from "./runtime.ts";
import type { StatusBar } from "./status-bar.ts";
import { watchBalance } from "./session-balance.ts";
import type { BalanceWatch } from "./balance.ts";
import { jobsLeftNote } from "./jobs-left.ts";
import { cardNotice, configuredNotify, Notifier } from "./notify.ts";
import { bangCommand, type ShellRun, ShellMode } from "./shell-mode.ts";
import { keptRuns } from "./kept-runs.ts";
import { keepShellRun } from "../store/shell-runs.ts";
import { applyTheme, editorTheme, type Theme, type ThemeName } from "./theme.ts";
import { configuredVim } from "./configured.ts";
import { Transcript } from "./transcript.ts";
import { ScreenHandover } from "./screen-handover.ts";
import { resumedLine } from "./resumed-history.ts";
import { storedCalls } from "./stored-calls.ts";
import { startedUp } from "../jit-policy.ts";


/**
 * The interactive terminal: the transcript on the main screen (finished blocks go to the
 * terminal's own scrollback and are never drawn again), a panel for cards and pickers, the
 * composer and the status bar. It draws what the runtime says and hands it what the person types.
 */
export class TuiApp implements CommandHost {
  readonly tui: TUI;
  readonly transcript: Transcript;
  readonly status: StatusBar;
  theme: Theme;
  private readonly header: Text;
  private readonly panel = new Panel();
  private readonly editor: Composer;
  private readonly pasteFolds: PasteFolds;
  /** The project whose earlier prompts Up recalls (loaded once a project). */
  private historyRoot: string | null = null;
  private readonly tooSmall = new Text("", 0, 0);
  private readonly cards: CardViews;
  private readonly balance: BalanceWatch;
  /** The composer's `!` commands. */
  private readonly shell: ShellMode;
  private readonly notifier: Notifier;
  private readonly handover: ScreenHandover;
  /** Prompts entered before the session was open, sent once it is. */
  private readonly early: string[] = [];
  private picker: Component | null = null;
  /** The session whose history the first frame drew, until that session is opened. */
  private drawnHistory: string | null = null;
  private ticker: ReturnType<typeof setInterval> | null = null;
  private quitting: Promise<void> | null = null;
  readonly sender: PromptSender;
  private finished: (session: Session | null) => void = () => {};
  readonly done: Promise<Session | null>;

  constructor(
    readonly runtime: TuiRuntime,
    private readonly frame: FirstFrame,
  ) {
    // The screen, drawn already, is the first frame's: its theme (config.yaml's), header and status bar.
    const parts = frame.take();
    ({ screen: this.tui, theme: this.theme, header: this.header, status: this.status } = parts);
    this.cards = new CardViews(this.theme, () => this.panelRoom());
    // A resumed session's history may be drawn already, in the transcript the first frame shows.
    this.transcript = parts.history?.transcript ?? new Transcript(this.theme);
    this.drawnHistory = parts.history?.sessionId ?? null;
    this.transcript.sentFrom = (turnId) => (runtime.share?.fromWeb(turnId) ? "from the web" : null);
    this.balance = watchBalance(runtime, (shown) => {
      this.status.balance = shown;
      this.render();
    });
    this.notifier = new Notifier((data) => this.tui.terminal.write(data), () => configuredNotify(() => runtime.ctx.config()), process.env);
    this.handover = new ScreenHandover(this.tui, this.notifier);
    this.editor = new Composer(this.tui, editorTheme(this.theme), {
      completion: sessionSources(runtime),
      cwd: () => (runtime.hasSession ? runtime.session.cwd : runtime.cwd),
      say: (message, level) => this.say(message, level),
      vimMode: (mode) => {
        this.status.vim = mode;
        this.render();
      },
      handover: this.handover,
    });
    this.editor.setVim(configuredVim(runtime));
    this.editor.onSubmit = (text) => this.submit(text);
    this.shell = new ShellMode({ cwd: () => (runtime.hasSession ? runtime.session.cwd : runtime.cwd), show: (block) => this.transcript.addChild(block), render: () => this.render(), keep: (run) => this.keepRun(run) }, this.theme);
    this.pasteFolds = new PasteFolds(this.editor);
    this.sender = new PromptSender(runtime, { line: (text, level) => this.transcript.line(text, level), render: () => this.render(), quitting: () => this.quitting !== null });
    this.done = new Promise((resolve) => {
      this.finished = resolve;
    });
    runtime.listen((change) => this.onRuntime(change));
    runtime.desk.listen((change) => {
      if (change.type === "open") {
        this.cards.add(change.card);
        this.notifier.notify(cardNotice(change.card));
      } else this.cards.drop(change.callId);
      this.showNext();
    });
  }

  start(): void {
    this.layout();
    const keys = new GlobalKeys(
      appKeySurface(this, {
        panel: () => (this.panel.current ? (this.panel.current === this.cards.first() ? "card" : "other") : null),
        editor: this.editor,
        shell: this.shell,
        suspend: () => this.handover.suspend(),
        rewind: () => void this.commandPicker("/rewind"),
      }),
    );
    // The first key says the terminal is in use: hot code is compiled as usual from then on (src/jit-policy.ts).
    this.tui.addInputListener((data) => (startedUp(), this.focusAndShellKeys(data)));
    this.tui.addInputListener((data) => keys.handle(data));
    this.tui.setFocus(this.editor);
    this.notifier.start();
    process.stdout.on("resize", () => this.layout());
  }

  private layout(): void {
    const { columns, rows } = this.tui.terminal;
    this.tui.clear();
    if (columns < MIN_COLUMNS || rows < MIN_ROWS) {
      this.tooSmall.setText(`Too small: lembas needs at least ${MIN_COLUMNS}×${MIN_ROWS} (this is ${columns}×${rows})`);
      this.tui.addChild(this.tooSmall);
    } else {
      for (const part of [this.header, this.transcript, this.panel, this.editor, this.status]) this.tui.addChild(part);
    }
    this.render();
  }

  render(): void {
    this.tui.requestRender();
  }

  /**
   * The rows the panel has for a card: the screen's, less the composer (at most 30% of them, as
   * the editor draws it, and its two borders) and the status bar, so that a card's start and its
   * options are on the screen together.
   */
  private panelRoom(): number {
    const rows = this.tui.terminal.rows;
    const composer = Math.min(this.editor.getLines().length, Math.max(5, Math.floor(rows * 0.3))) + 2;
    return rows - composer - 1;
  }

  /** One line in the transcript from outside the session (stray output, an error nobody caught). */
  say(line: string, level: "info" | "warn" | "error" = "info"): void {
    this.transcript.line(line, level);
    this.render();
  }

  setTheme(name: ThemeName): void {
    applyTheme(this.theme, name);
    // Every block drawn so far is drawn again in the new colours (a full redraw, once).
    this.tui.invalidate();
    this.tui.requestRender(true);
  }

  pick<T>(title: string, items: readonly { value: T; label: string; description?: string }[], selected = 0): Promise<T | null> {
    return new Promise((resolve) => {
      const picker = new Picker<T>(title, items, this.theme, (value) => {
        this.picker = null;
        this.showNext();
        resolve(value);
      }, selected, () => this.panelRoom());
      this.picker = picker;
      this.showNext();
    });
  }

  present(component: Component): () => void {
    this.picker = component;
    this.showNext();
    return () => {
      if (this.picker !== component) return;
      this.picker = null;
      this.showNext();
    };
  }

  /** `-r` without an id: the sessions to resume, picked here. */
  async resumePicker(): Promise<void> {
    await findTuiCommand("/resume")?.command.run(this, "");
  }

  /** Runs a terminal command's picker (the one a key opens); what fails is said. */
  private async commandPicker(command: string): Promise<void> {
    try {
      await findTuiCommand(command)?.command.run(this, "");
    } catch (error) {
      this.say(errorMessage(error), "error");
    }
  }

  async switchTo(opening: Opening, choice: SessionChoice = {}): Promise<void> {
    const left = this.runtime.hasSession ? this.runtime.session : null;
    // Read before the switch stops them; said after it, in the transcript that is then shown.
    const note = left ? jobsLeftNote(left.jobs.list(), `as session ${left.id} was left`) : null;
    // A switch that failed opened nothing: what was entered meanwhile goes to the session still shown.
    await this.runtime.switchTo(opening, choice).finally(() => !this.runtime.switching && this.sendEarly());
    if (note && this.runtime.session.id !== left?.id) this.say(note, "warn");
  }

  compose(text: string): void {
    this.editor.setText(text);
    this.render();
  }

  /** /vim: vim mode on or off; whether it is now on. */
  toggleVim(): boolean {
    this.editor.setVim(!this.editor.vimOn);
    return this.editor.vimOn;
  }

  writeTerminal(data: string): void {
    this.tui.terminal.write(data);
  }

  /** Whether another program has the terminal (Ctrl+G's editor, the shell after Ctrl-Z). */
  get terminalGivenAway(): boolean {
    return this.handover.givenAway;
  }

  quit(): void {
    this.quitting ??= this.shutdown();
  }

  private async shutdown(): Promise<void> {
    this.stopTicker();
    this.shell.stop();
    this.balance.stop();
    let session: Session | null = null;
    const jobsLeft = this.runtime.hasSession ? jobsLeftNote(this.runtime.session.jobs.list()) : null;
    if (jobsLeft) this.transcript.line(jobsLeft, "warn");
    try {
      session = await this.runtime.quit();
      await this.sender.settled();
    } catch (error) {
      this.transcript.line(`the session could not be closed cleanly: ${errorMessage(error)}`, "error");
    }
    try {
      // The last frame shows how the session ended (no card, no "working") before the screen stops.
      this.tui.renderNow();
      this.tui.stop();
      this.notifier.stop();
    } catch {
      // The terminal went away (a hang-up): there is nothing left to restore on it.
    }
    this.finished(session);
  }

  private onRuntime(change: RuntimeChange): void {
    if (change.type === "opened") {
      // What `!` commands printed was for the session left.
      this.shell.forget();
      this.opened(change.session, change.history);
    } else if (change.type === "rewound") {
      // What scrolled away is never drawn again: the conversation as it is now follows, below.
      this.transcript.line(change.history.length > 0 ? "the conversation now:" : "the conversation is empty now");
      this.transcript.history(change.history, storedCalls);
    } else if (change.type === "note") {
      this.transcript.line(change.message, change.level);
    } else if (change.type === "sharing") {
      this.showSharing();
    } else {
      const { event } = change;
      this.status.apply(event);
      if (event.type === "task") this.onTask(event.state, event.stopReason);
      if ((event.type === "task" && event.state === "end") || event.type === "model") void this.balance.refresh();
      if (event.type === "title") this.setWindowTitle(event.title);
      if (event.type === "model" && event.ref === null) {
        this.status.set({ model: this.runtime.defaultModel, mode: this.runtime.session.mode, effort: event.effort });
        if (!this.runtime.defaultModel) this.showDefaultModel();
      }
      this.transcript.apply(event);
    }
    this.render();
  }

  private opened(session: Session, history: Parameters<Transcript["history"]>[0]): void {
    this.transcript.cwd = session.cwd;
    this.transcript.root = session.root;
    this.loadPromptHistory(session.root);
    this.status.reset({ model: session.model ?? this.runtime.defaultModel, mode: session.mode, effort: session.effort });
    if (!session.model && !this.runtime.defaultModel) this.showDefaultModel();
    this.setHeader();
    // The first frame drew this session's history (resumed-history.ts): once, not again.
    const drawn = this.drawnHistory === session.id;
    this.drawnHistory = null;
    if (history.length > 0 && !drawn) {
      this.transcript.line(resumedLine(session.id, session.title));
      this.transcript.history(history, storedCalls, keptRuns(this.runtime.ctx.db(), session.id, this.theme));
    }
    this.sendEarly();
    this.balance.start();
    void this.balance.refresh();
    this.showSharing();
  }

  /** The status bar's word on sharing: with whom, or dimmed, why not. */
  private showSharing(): void {
    const said = this.runtime.sharingSaid();
    this.status.sharing = said ? (said.shared ? said.bar : this.theme.dim(said.bar)) : null;
  }

  /**
   * With no model in config.yaml, the one the engine will use (a login's first, a local server's)
   * is only known once the lists are read: the status bar says it then, and "no model" meanwhile.
   */
  private showDefaultModel(): void {
    void this.runtime.models
      .resolve(null)
      .then((model) => {
        if (!this.runtime.hasSession || this.runtime.session.model) return;
        this.status.setModel(model.ref);
        this.render();
      })
      .catch(() => {
        // no model to be had: the status bar goes on saying so, and a turn says why
      });
  }

  /** Up and Down reach the prompts typed earlier in this project's sessions. */
  private loadPromptHistory(root: string): void {
    if (this.historyRoot === root) return;
    this.historyRoot = root;
    try {
      this.editor.loadHistory(projectPrompts(this.runtime.ctx.db(), root));
    } catch (error) {
      this.transcript.line(`the earlier prompts could not be read: ${errorMessage(error)}`, "warn");
    }
  }


  /**
   * The header says what does not change while the session is open (it soon scrolls away, and a
   * line changed above the screen redraws everything); the session's title goes to the window's.
   */
  private setHeader(): void {
    if (!this.runtime.hasSession) return;
    const s = this.runtime.session;
    this.header.setText(this.theme.dim(headerText(s.cwd)));
    this.setWindowTitle(s.title);
  }

  private setWindowTitle(title: string): void {
    // Control characters from a model-made title never reach the terminal.
    const clean = title.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ").slice(0, 120);
    this.tui.terminal.write(`\x1b]0;${clean ? `${clean} · lembas` : "lembas"}\x07`);
  }

  private onTask(state: "start" | "end", stopReason?: string): void {
    if (state === "start") {
      this.ticker ??= setInterval(() => this.render(), 100);
      return;
    }
    this.stopTicker();
    // A turn the person interrupted ended in front of them.
    if (stopReason !== "cancelled") this.notifier.notify("lembas is waiting for your input");
  }

  private stopTicker(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
  }

  /** What the person entered in the composer (or gave as the first message). */
  submit(raw: string): void {
    const text = raw.trim();
    if (!text) return;
    if (!this.runtime.hasSession || this.runtime.switching) {
      // The screen comes up before the session is open, and /new leaves one before the next is open: what is entered meanwhile waits for it.
      this.early.push(raw);
      return;
    }
    this.editor.addToHistory(raw);
    const command = bangCommand(text);
    if (command !== null) return this.runShell(command, raw);
    const tui = findTuiCommand(text);
    if (tui) {
      void Promise.resolve(tui.command.run(this, tui.args))
        .catch((error: unknown) => {
          this.transcript.line(errorMessage(error), "error");
        })
        // A command may change what sharing is (/share, /unshare, /settings remote.roots).
        .finally(() => {
          this.showSharing();
          this.render();
        });
      return;
    }
    const unknown = unknownCommandLine(this, text);
    if (unknown) {
      // The draft stays for the typo to be fixed in place, as Claude Code keeps it.
      this.transcript.line(unknown, "warn");
      this.editor.setText(raw);
      this.render();
      return;
    }
    const session = this.runtime.session;
    if (session.steerable && this.editor.hasImagesIn(raw)) {
      // Steering carries text only: the images wait, with their text, for the turn to end.
      this.editor.setText(raw);
      this.status.say("a turn is running: images go with a prompt, send it when the turn ends");
      this.render();
      return;
    }
    // Text steers a running turn; a command, or text while turns only wait (just sent) or an action runs, is a turn queued after them.
    if (session.steerable && !this.runtime.isCommand(text)) {
      this.runtime.steer(text);
      this.status.say("given to the model at its next step");
      this.render();
      return;
    }
    // What `!` commands printed goes with the next prompt, not with a command (/compact, /review).
    const context = text.startsWith("/") && this.runtime.isCommand(text) ? undefined : (this.shell.takeContext() ?? undefined);
    this.transcript.foldPastes(this.pasteFolds.take(raw));
    this.sender.send(text, this.editor.takeImages(raw), context);
  }

  /** What was entered before a session was open, or while the terminal moved to another: sent in the order typed. */
  private sendEarly = (): void => this.early.splice(0).forEach((raw) => queueMicrotask(() => this.submit(raw)));

  /** Focus reports go to the notifier; while a `!` command runs, Esc and Ctrl-C stop it. */
  private focusAndShellKeys(data: string): { consume: true } | undefined {
    return this.notifier.input(data) || this.shell.stopKey(data, this.editor.capturesViewportInput) ? { consume: true } : undefined;
  }

  /** A `!` run kept with the session (drawn when it is resumed); one that cannot be is said. */
  private keepRun(run: ShellRun): void {
    if (!this.runtime.hasSession) return;
    try {
      keepShellRun(this.runtime.ctx.db(), this.runtime.session.id, run);
    } catch (error) {
      this.say(`the command's output could not be kept with the session: ${errorMessage(error)}`, "warn");
    }
  }

  /** `!command`: run in the session's directory as the person, or why not now (the draft kept). */
  private runShell(command: string, raw: string): void {
    const wait = this.shell.refusal(command, this.runtime.session.busy);
    if (wait === null) return void this.shell.run(command);
    if (command) this.editor.setText(raw);
    this.status.say(wait);
    this.render();
  }

  /** The panel shows the picker if one is open, else the oldest card; the composer has focus otherwise. */
  private showNext(): void {
    const next = this.picker ?? this.cards.first();
    if (!next) {
      this.panel.hide();
      this.tui.setFocus(this.editor);
    } else if (next !== this.panel.current) {
      this.panel.show(next);
      this.tui.setFocus(next);
    }
    this.render();
  }
}
