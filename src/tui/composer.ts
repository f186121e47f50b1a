import { type ClipboardImage, clipboardImage } from "./clipboard.ts";
import { type CompletionSources, ComposerCompletion } from "./completion.ts";
import { Editor, type EditorTheme, matchesKey, type TUI } from "./kit.ts";
import { editExternally, type TerminalHandover } from "./external-editor.ts";
import { BRACKETED } from "./one-line-paste.ts";
import { pastesIn } from "./paste-folds.ts";
import { draggedImagePaths, type ImageTake, imageFromBytes, imageFromFile, sizeText } from "./paste-image.ts";
import type { PastedImage } from "./runtime.ts";
import type { VimMode } from "./vim-keys.ts";
import { VimEditor } from "./vim-editor.ts";

export type ComposerOptions = {
  completion: CompletionSources;
  /** The directory a dragged relative path is read from (the session's). */
  cwd(): string;
  /** One line in the transcript: an image attached, or why not. */
  say(message: string, level: "info" | "warn"): void;
  /** The clipboard's image (the platform's tool by default). */
  readClipboard?: () => Promise<ClipboardImage>;
  /** Vim mode's mode changed (null: vim mode is off), for the status bar. */
  vimMode?: (mode: VimMode | null) => void;
  /** How the terminal is given to the editor Ctrl+G opens and taken back (the screen alone by default). */
  handover?: TerminalHandover;
};

/**
 * Where the person writes: pi-tui's Editor (Enter sends; Shift+Enter, Alt+Enter or `\` then Enter
 * a new line; Up and Down the project's earlier prompts; a large paste folded to a marker and
 * sent whole) with the `/` and `@` completions, and images: Ctrl+V takes the clipboard's, a
 * dragged image file's path is taken as that image. An image shows as `[image #1 name.png]` and
 * goes with the prompt whose text still has its marker. Ctrl+G edits the draft in $VISUAL or
 * $EDITOR; with vim mode on, the keys go through src/tui/vim-editor.ts first.
 */
export class Composer extends Editor {
  private readonly images = new Map<number, PastedImage>();
  private nextImage = 1;
  private readingClipboard = false;
  private readonly completion: ComposerCompletion;
  private vim: VimEditor | null = null;
  private editingExternally = false;
  /** What ↑ reaches, newest first, as entered: the stored prompts and what was entered here (`!` commands, cleared drafts). */
  private readonly recalled: string[] = [];

  constructor(
    tui: TUI,
    theme: EditorTheme,
    private readonly options: ComposerOptions,
  ) {
    super(tui, theme);
    this.completion = new ComposerCompletion(options.completion);
    this.setAutocompleteProvider(this.completion);
  }

  override handleInput(data: string): void {
    if (this.editingExternally) return;
    if (matchesKey(data, "ctrl+g")) {
      void this.editExternally();
      return;
    }
    if (this.vim && !(matchesKey(data, "escape") && this.isShowingAutocomplete()) && this.vim.handle(data, (rest) => this.handleInput(rest))) {
      this.tui.requestRender();
      return;
    }
    if (matchesKey(data, "ctrl+v")) {
      void this.pasteClipboard();
      return;
    }
    const pasted = BRACKETED.exec(data)?.[1];
    const dragged = pasted === undefined ? null : draggedImagePaths(pasted, this.options.cwd());
    if (dragged) {
      for (const path of dragged) this.attach(imageFromFile(path));
      return;
    }
    if (pasted !== undefined && /(\r\n|\r|\n)$/.test(pasted)) {
      // A copied block ends in a line break: it is not one more line of the paste (300 lines
      // read "+301 lines"), so it is typed after the paste's marker, and the text sent is the same.
      super.handleInput(`\x1b[200~${pasted.replace(/(\r\n|\r|\n)$/, "")}\x1b[201~`);
      this.insertTextAtCursor("\n");
      return;
    }
    if (matchesKey(data, "enter") && this.isShowingAutocomplete() && !this.menuStillApplies()) {
      // The menu was made before a space or the like arrived in the same chunk as Enter (a paste,
      // a slow link): it no longer completes anything, so Enter sends the text as typed. Setting
      // the provider again is the editor's one public way to close its menu.
      this.setAutocompleteProvider(this.completion);
    }
    if (matchesKey(data, "enter") && !this.isShowingAutocomplete()) {
      // Enter came before the menu for the name typed so far was shown (a slow link, a loaded
      // machine): the name is completed as the menu would have, so "/stat⏎" runs /status either way.
      const completed = this.completion.commandFor(this.getText());
      if (completed) this.setText(completed);
    }
    super.handleInput(data);
    if (this.vim && matchesKey(data, "enter") && this.getText() === "") this.vim.sent();
  }

  /** Vim mode on or off; it starts in insert mode. */
  setVim(on: boolean): void {
    if (on === (this.vim !== null)) return;
    this.vim = on ? new VimEditor(this, (mode) => this.options.vimMode?.(mode)) : null;
    this.options.vimMode?.(this.vim ? this.vim.mode : null);
  }

  get vimOn(): boolean {
    return this.vim !== null;
  }

  /** The vim mode the composer is in; null when vim mode is off. */
  get vimMode(): VimMode | null {
    return this.vim?.mode ?? null;
  }

  /** Ctrl+G: the draft (pastes whole) in the person's editor; what it leaves becomes the draft. */
  private async editExternally(): Promise<void> {
    this.editingExternally = true;
    try {
      const pastes = pastesIn(this.getText(), this.getExpandedText());
      const edited = await editExternally(this.getExpandedText(), this.options.handover ?? this.tui);
      if (!edited.ok) this.options.say(edited.message, "warn");
      else if (edited.text !== this.getExpandedText()) this.setFolded(edited.text, pastes);
    } finally {
      this.editingExternally = false;
      this.tui.requestRender();
    }
  }

  /** The draft becomes `text`, each of the large `pastes` it still holds whole folded to a marker again. */
  private setFolded(text: string, pastes: readonly string[]): void {
    const undo = this.undoSteps();
    const before = undo?.length ?? 0;
    this.setText("");
    let rest = text;
    for (const paste of pastes) {
      const at = rest.indexOf(paste);
      // pi-tui puts a space before a pasted path that follows a word: such a paste stays as text.
      if (at < 0 || (/^[/~.]/.test(paste) && /\w$/.test(rest.slice(0, at)))) continue;
      this.insertTextAtCursor(rest.slice(0, at));
      super.handleInput(`\x1b[200~${paste}\x1b[201~`);
      rest = rest.slice(at + paste.length);
    }
    this.insertTextAtCursor(rest);
    // The edit is one undo step, as the editor made it: its first snapshot is the draft before it.
    if (undo && undo.length > before + 1) undo.length = before + 1;
  }

  /** pi-tui's undo stack (private to its Editor); null where a version keeps it elsewhere, and the steps are then left as they are. */
  private undoSteps(): unknown[] | null {
    const stack = (this as unknown as { undoStack?: { stack?: unknown } }).undoStack?.stack;
    return Array.isArray(stack) ? stack : null;
  }

  private menuStillApplies(): boolean {
    const { line, col } = this.getCursor();
    return this.completion.completesAt(this.getLines(), line, col);
  }

  /** Earlier prompts, newest first, for Up and Down (after those already there). */
  loadHistory(prompts: readonly string[]): void {
    for (const prompt of [...prompts].reverse()) this.addToHistory(prompt);
  }

  override addToHistory(text: string): void {
    super.addToHistory(text);
    const trimmed = text.trim();
    if (!trimmed || this.recalled[0] === trimmed) return;
    this.recalled.unshift(trimmed);
    if (this.recalled.length > RECALLED_SIZE) this.recalled.pop();
  }

  /** What ↑ reaches, newest first: Ctrl+R searches these before the older stored prompts. */
  earlier(): readonly string[] {
    return this.recalled;
  }

  /** Whether `text` carries an image marker of an image waiting to be sent. */
  hasImagesIn(text: string): boolean {
    return [...this.images.keys()].some((id) => text.includes(marker(id)));
  }

  /**
   * The images whose markers are in `text`, for the prompt being sent; every waiting image is
   * let go (one whose marker was deleted is not sent).
   */
  takeImages(text: string): PastedImage[] {
    const taken = [...this.images].filter(([id]) => text.includes(marker(id))).map(([, image]) => image);
    this.images.clear();
    this.nextImage = 1;
    return taken;
  }

  private async pasteClipboard(): Promise<void> {
    if (this.readingClipboard) return;
    this.readingClipboard = true;
    let got: ClipboardImage;
    try {
      got = await (this.options.readClipboard ?? clipboardImage)();
    } catch (error) {
      got = { ok: false, message: `the clipboard could not be read: ${error instanceof Error ? error.message : String(error)}` };
    } finally {
      this.readingClipboard = false;
    }
    if (!got.ok) {
      this.options.say(got.message, "warn");
      this.tui.requestRender();
      return;
    }
    this.attach(imageFromBytes(got.bytes, got.mimeType, `clipboard.${got.mimeType.split("/")[1] ?? "png"}`));
  }

  private attach(take: ImageTake): void {
    if (!take.ok) {
      this.options.say(take.message, "warn");
      this.tui.requestRender();
      return;
    }
    const id = this.nextImage++;
    this.images.set(id, take.image);
    const name = take.image.name ?? "image";
    this.insertTextAtCursor(`${marker(id)}${name}] `);
    this.options.say(`image #${id} ${name} (${sizeText(take.bytes)}) goes with the next prompt`, "info");
    this.tui.requestRender();
  }
}

/** How many entries of ↑'s history Ctrl+R reads from the composer (the stored prompts beyond come from the store). */
const RECALLED_SIZE = 2_000;

/** The start of an image's marker, `[image #1 `, by which a prompt's text is matched to its images. */
function marker(id: number): string {
  return `[image #${id} `;
}
