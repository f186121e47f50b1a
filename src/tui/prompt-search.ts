import { errorMessage } from "../errors.ts";
import type { CommandHost } from "./command-host.ts";
import { type Component, type Focusable, Input, matchesKey, truncateToWidth } from "./kit.ts";
import { oneLinePaste } from "./one-line-paste.ts";
import { projectPrompts, SEARCH_SIZE } from "./prompt-history.ts";
import type { Theme } from "./theme.ts";

/** How many lines of a long match are shown; the rest is counted. */
const MATCH_LINES = 4;

/**
 * A shell's reverse search over earlier prompts (newest first): the matches are the prompts that
 * hold the query (case aside), newest first; older and newer step through them.
 */
export class PromptSearch {
  private query = "";
  private found: readonly string[];
  private at = 0;

  constructor(private readonly prompts: readonly string[]) {
    this.found = prompts;
  }

  /** The query changed: the newest prompt that holds it is shown. */
  setQuery(query: string): void {
    if (query === this.query) return;
    this.query = query;
    const needle = query.toLowerCase();
    this.found = this.prompts.filter((prompt) => prompt.toLowerCase().includes(needle));
    this.at = 0;
  }

  get text(): string {
    return this.query;
  }

  /** The match shown, or null when nothing holds the query. */
  current(): string | null {
    return this.found[this.at] ?? null;
  }

  /** The next older match; the oldest stays. */
  older(): void {
    this.at = Math.min(this.at + 1, Math.max(0, this.found.length - 1));
  }

  /** The next newer match; the newest stays. */
  newer(): void {
    this.at = Math.max(0, this.at - 1);
  }

  /** Which match is shown, counted from the newest, and how many there are. */
  position(): { at: number; of: number } {
    return { at: this.at + 1, of: this.found.length };
  }

  get empty(): boolean {
    return this.prompts.length === 0;
  }
}

export type PromptSearchHandlers = {
  /** Enter on a match: it becomes the draft. */
  take(prompt: string): void;
  /** The search ends and the draft stays as it was; `note` says why, when there is something to say. */
  leave(note?: string): void;
};

/**
 * Ctrl+R's panel: the query typed as in a shell's reverse search, the newest earlier prompt that
 * holds it under it (the query marked); Ctrl+R or ↑ an older one, ↓ a newer; Enter takes it into
 * the composer; Esc, Ctrl-C or Ctrl+G leave with the draft unchanged.
 */
export class PromptSearchView implements Component, Focusable {
  private readonly search: PromptSearch;
  private readonly input = new Input({ prompt: "" });
  private _focused = false;

  constructor(
    prompts: readonly string[],
    private readonly theme: Theme,
    private readonly handlers: PromptSearchHandlers,
  ) {
    this.search = new PromptSearch(prompts);
  }

  get focused(): boolean {
    return this._focused;
  }

  set focused(value: boolean) {
    this._focused = value;
    this.input.focused = value;
  }

  handleInput(data: string): void {
    if (matchesKey(data, "escape") || matchesKey(data, "ctrl+c") || matchesKey(data, "ctrl+g")) {
      this.handlers.leave();
      return;
    }
    if (matchesKey(data, "enter")) {
      const match = this.search.current();
      if (match !== null) this.handlers.take(match);
      else this.handlers.leave(`${this.noMatch()}; the draft is as it was`);
      return;
    }
    if (matchesKey(data, "ctrl+r") || matchesKey(data, "up")) {
      this.search.older();
      return;
    }
    if (matchesKey(data, "ctrl+s") || matchesKey(data, "down")) {
      this.search.newer();
      return;
    }
    this.input.handleInput(oneLinePaste(data));
    this.search.setQuery(this.input.getValue());
  }

  private noMatch(): string {
    return this.search.empty ? "no earlier prompts in this project to search" : `no earlier prompt holds “${this.search.text}”`;
  }

  render(width: number): readonly string[] {
    const t = this.theme;
    const field = this.input.render(Math.max(1, width - 26))[0] ?? "";
    const lines = ["", truncateToWidth(`${t.bold("search earlier prompts:")} ${field}`, width)];
    const match = this.search.current();
    if (match === null) {
      lines.push(truncateToWidth(`  ${t.warn(this.noMatch())}`, width), truncateToWidth(t.dim("  Backspace changes it · Esc leaves"), width));
      return lines;
    }
    const rows = match.split("\n");
    rows.slice(0, MATCH_LINES).forEach((row, i) => lines.push(truncateToWidth(`${i === 0 ? t.selected("› ") : "  "}${this.marked(row)}`, width)));
    if (rows.length > MATCH_LINES) lines.push(t.dim(`  … ${rows.length - MATCH_LINES} more lines`));
    const { at, of } = this.search.position();
    lines.push(truncateToWidth(t.dim(`  ${at} of ${of} · Ctrl+R older · ↓ newer · Enter takes it · Esc leaves`), width));
    return lines;
  }

  /** A row of the match with the query's first occurrence in it marked. */
  private marked(row: string): string {
    const query = this.search.text;
    const start = query ? row.toLowerCase().indexOf(query.toLowerCase()) : -1;
    if (start < 0) return row;
    return `${row.slice(0, start)}${this.theme.accent(this.theme.bold(row.slice(start, start + query.length)))}${row.slice(start + query.length)}`;
  }

  invalidate(): void {
    this.input.invalidate();
  }
}

/**
 * Opens Ctrl+R's search over this project's earlier prompts in the panel; what it takes becomes
 * the draft. `recalled`: what ↑ reaches, newest first (what was entered here, `!` commands and
 * cleared drafts too, which the store does not hold); the older stored prompts follow it.
 */
export function openPromptSearch(app: CommandHost, recalled: readonly string[] = []): void {
  if (!app.runtime.hasSession) return;
  let prompts: string[];
  try {
    prompts = [...new Set([...recalled, ...projectPrompts(app.runtime.ctx.db(), app.runtime.session.root, SEARCH_SIZE)])];
  } catch (error) {
    app.status.say(`the earlier prompts could not be read: ${errorMessage(error)}`);
    app.render();
    return;
  }
  const close = app.present(
    new PromptSearchView(prompts, app.theme, {
      take: (prompt) => {
        close();
        app.compose(prompt);
      },
      leave: (note) => {
        close();
        if (note) app.status.say(note);
        app.render();
      },
    }),
  );
}
