import { visibleLine } from "../controls.ts";
import { projectRoot } from "../engine/engine.ts";
import { mentionFor } from "../project/attach.ts";
import { loadCommands } from "../project/commands.ts";
import type { FileEntry } from "../project/files.ts";
import { TUI_COMMAND_LIST } from "./commands.ts";
import { type AutocompleteItem, type AutocompleteProvider, type AutocompleteSuggestions, fuzzyFilter } from "./kit.ts";
import type { TuiRuntime } from "./runtime.ts";

/** A command the `/` menu offers. */
export type CompletionCommand = { name: string; description: string; hint?: string };

/** Where the composer's completions come from. */
export type CompletionSources = {
  /** The session's commands (built-ins, custom, skills) and the terminal's own, read when a `/` menu opens. */
  commands(): readonly CompletionCommand[];
  /** The @ picker's search: the same index and frecency as `_lembas/files/search`. */
  files(query: string): Promise<readonly FileEntry[]>;
  /** A file was picked: its use counts for the picker's frecency. */
  picked(path: string): void;
};

/**
 * The completions of the runtime's session: its command set (built-ins, custom commands, skills)
 * and the terminal's own commands; files from its working directory, which @paths are read from.
 */
export function sessionSources(runtime: TuiRuntime): CompletionSources {
  // Typed before the session is open (a fast typist at start): the directory it opens in.
  const place = () => (runtime.hasSession ? runtime.session : { root: projectRoot(runtime.cwd), cwd: runtime.cwd });
  return {
    commands() {
      const shared = loadCommands({ root: place().root, configDir: runtime.ctx.paths.configDir, protectedPaths: runtime.engine.protectedPaths }).all;
      const names = new Set(shared.map((c) => c.name));
      return [...shared, ...TUI_COMMAND_LIST.filter((c) => !names.has(c.name))];
    },
    files: (query) => runtime.files.search(place().cwd, { query, limit: FILE_LIMIT }),
    picked: (path) => runtime.files.recordUse(place().cwd, path),
  };
}

/** How many files the @ menu lists (the protocol's default). */
const FILE_LIMIT = 20;
/**
 * An @path being typed: an @ at the start or after a space or an opening bracket (as the expander
 * reads mentions, src/project/attach.ts), then the path so far, `\ ` and `\#` escaped, possibly
 * ending in the backslash of an escape not yet finished.
 */
const AT_TOKEN = /(?:^|[\s([{"'])(@(?:\\.|[^\s\\])*\\?)$/;
/** A command name being typed on the composer's first line. */
const SLASH_TOKEN = /^\s*(\/[\w-]*)$/;

/**
 * The composer's completions, as pi-tui's Editor asks for them: `/` on the first line lists the
 * commands (Tab completes, Enter runs), `@` lists the project's files (Tab or Enter writes the
 * escaped path, as the spec's picker does: `@my\ notes.md`).
 */
export class ComposerCompletion implements AutocompleteProvider {
  readonly triggerCharacters = ["@"];
  private commands: readonly CompletionCommand[] = [];

  constructor(private readonly sources: CompletionSources) {}

  async getSuggestions(lines: string[], cursorLine: number, cursorCol: number, options: { signal: AbortSignal; force?: boolean }): Promise<AutocompleteSuggestions | null> {
    const token = this.tokenAt((lines[cursorLine] ?? "").slice(0, cursorCol), cursorLine, options.force);
    if (token === undefined) return null;
    return token.startsWith("@") ? this.fileSuggestions(token, options.signal) : this.commandSuggestions(token);
  }

  /** Whether the text before the cursor still ends in something a menu completes (an @path, a command name). */
  completesAt(lines: readonly string[], cursorLine: number, cursorCol: number): boolean {
    return this.tokenAt((lines[cursorLine] ?? "").slice(0, cursorCol), cursorLine) !== undefined;
  }

  /** The @path or the command name that ends `before`, the text before the cursor. */
  private tokenAt(before: string, cursorLine: number, force = false): string | undefined {
    const at = AT_TOKEN.exec(before)?.[1];
    if (at !== undefined) return at;
    return cursorLine === 0 && !force ? SLASH_TOKEN.exec(before)?.[1] : undefined;
  }

  applyCompletion(lines: string[], cursorLine: number, cursorCol: number, item: AutocompleteItem, prefix: string): { lines: string[]; cursorLine: number; cursorCol: number } {
    const line = lines[cursorLine] ?? "";
    const typed = this.tokenAt(line.slice(0, cursorCol), cursorLine);
    if (typed !== prefix) {
      // The menu was made for text typed since (the rest of a command and Enter in one chunk: a
      // paste, a slow link): what is typed now decides, as if the menu had caught up.
      const current = typed?.startsWith("/") ? this.commandSuggestions(typed) : null;
      const best = current ? bestItem(current.items, typed ?? "") : undefined;
      if (!best || typed === undefined) return { lines, cursorLine, cursorCol };
      return this.applyCompletion(lines, cursorLine, cursorCol, best, typed);
    }
    const start = Math.max(0, cursorCol - prefix.length);
    const after = line.slice(cursorCol);
    // A directory stays open for more typing; a file or a command is followed by a space.
    const dir = item.value.endsWith("/");
    const spaced = !dir && after.startsWith(" ");
    if (prefix.startsWith("@")) this.sources.picked(item.label.replace(/\/$/, ""));
    const head = line.slice(0, start) + item.value + (dir || spaced ? "" : " ");
    const next = [...lines];
    next[cursorLine] = head + after;
    return { lines: next, cursorLine, cursorCol: head.length + (spaced ? 1 : 0) };
  }

  /**
   * The command `text` names when it is a command name alone, not finished: the one the menu would
   * select first for it. Undefined when it names a command whole, or none, or is more than a name.
   */
  commandFor(text: string): string | undefined {
    const typed = SLASH_TOKEN.exec(text)?.[1];
    if (!typed || typed === "/") return undefined;
    const items = this.commandSuggestions(typed)?.items ?? [];
    if (items.some((item) => item.value === typed)) return undefined;
    return items.find((item) => item.value.startsWith(typed))?.value;
  }

  private async fileSuggestions(token: string, signal: AbortSignal): Promise<AutocompleteSuggestions | null> {
    const query = token.slice(1).replace(/\\(.)/g, "$1").replace(/\\$/, "");
    let entries: readonly FileEntry[];
    try {
      entries = await this.sources.files(query);
    } catch {
      // The index could not be listed (no ripgrep, an unreadable tree): no menu, the text stays as typed.
      return null;
    }
    if (signal.aborted || entries.length === 0) return null;
    const items = entries.slice(0, FILE_LIMIT).map((entry) => {
      // A name a project made (a cloned repo, an archive) is drawn, and written into the draft, with
      // its control characters shown as escapes: they would act on the terminal, not be read.
      const path = visibleLine(entry.kind === "dir" && !entry.path.endsWith("/") ? `${entry.path}/` : entry.path);
      return { value: mentionFor(path), label: path };
    });
    return { items, prefix: token };
  }

  private commandSuggestions(token: string): AutocompleteSuggestions | null {
    // Read afresh each time a menu opens: a command file written or a skill made since shows up.
    if (token === "/" || this.commands.length === 0) this.commands = this.sources.commands();
    const matches = fuzzyFilter([...this.commands], token.slice(1), (c) => c.name);
    if (matches.length === 0) return null;
    const items = matches.map((c) => ({
      value: `/${c.name}`,
      label: `/${c.name}`,
      description: visibleLine(c.hint ? `${c.hint} — ${c.description}` : c.description),
    }));
    return { items, prefix: token };
  }
}

/** The item a menu selects first for `token`, as the editor does: the exact one, else the first starting with it, else the first. */
function bestItem(items: readonly AutocompleteItem[], token: string): AutocompleteItem | undefined {
  return items.find((item) => item.value === token) ?? items.find((item) => item.value.startsWith(token)) ?? items[0];
}
