import { joinContinuations } from "./continuations.ts";
import { decodeAnsiC } from "./ansi-c.ts";

/**
 * Reads a bash command line far enough to say which simple commands it runs, with what words and
 * redirections. It does not run or expand anything: it is for judging a line before it runs, so
 * whatever it cannot read for certain makes the line "substitutes" or "unreadable", never a guess.
 */

/**
 * A piece of a word as bash reads it: text (quoted or not: only unquoted text is expanded), a
 * parameter (`$HOME`, `${HOME}`, `$1`), or what only running tells (`$(…)`, `` `…` ``, `$((…))`,
 * `<(…)`).
 */
export type WordPart =
  | { kind: "text"; text: string; quoted: boolean }
  | { kind: "var"; name: string; quoted: boolean }
  | { kind: "unknown"; quoted: boolean };

/**
 * A word after quote removal; literal when the shell expands nothing in it (no $, glob, brace or ~).
 * `parts` keeps what was quoted, for judging what it expands to (see command-words.ts).
 */
export type Word = { text: string; literal: boolean; parts: WordPart[] };

/** A redirection: `2>&1` is { fd: 2, op: ">&", target: "1" }; a here-document's target is its delimiter. */
export type Redirect = { fd: number | null; op: RedirectOp; target: Word };
export type RedirectOp = ">" | ">>" | ">|" | "&>" | "&>>" | "<>" | ">&" | "<" | "<&" | "<<" | "<<-" | "<<<";

/** One simple command: leading assignments (`CI=1`), its words, and its redirections. */
export type SimpleCommand = { assignments: string[]; words: Word[]; redirects: Redirect[] };

export type ParsedLine =
  /**
   * grouped: some commands run in a subshell `( … )`. With `substitutions` read, the commands of
   * each `$(…)`, `` `…` `` and `<(…)` are among them, before the command whose word holds it.
   */
  | { kind: "commands"; commands: SimpleCommand[]; grouped: boolean }
  /** The line runs commands of its own making: $(…), `…`, <(…), >(…), $((…)), ${…} beyond a name. */
  | { kind: "substitutes" }
  | { kind: "unreadable"; why: string };

export type ParseOptions = {
  /**
   * Read what `$(…)`, `` `…` ``, `<(…)` and a plain `$((…))` run instead of stopping there: their
   * commands are listed, and the words holding them are not literal (what they expand to is
   * only known when they run). Off, such a line is "substitutes".
   */
  substitutions?: boolean;
};

class Stop {
  constructor(readonly result: ParsedLine) {}
}
const substitutes = (): never => {
  throw new Stop({ kind: "substitutes" });
};
const unreadable = (why: string): never => {
  throw new Stop({ kind: "unreadable", why });
};

const BLANK = new Set([" ", "\t"]);
const META = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
const OPERATORS = ["&&", "||", "|&", ";", "|", "&"] as const;
const REDIRECTS: readonly RedirectOp[] = ["&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", ">>", ">&", ">|", "<", ">"];
/** What a `$((…))` may hold and still be plain arithmetic: no parameter, substitution or subscript. */
const PLAIN_ARITHMETIC = /^[A-Za-z0-9_\s+\-*/%<>=!&|^~?:(),.]*$/;

/** Parses a command line as bash would read it. */
export function parseCommandLine(line: string, options: ParseOptions = {}): ParsedLine {
  const joined = joinContinuations(line);
  if ("unreadable" in joined) return { kind: "unreadable", why: joined.unreadable };
  try {
    return new Reader(joined.text, options.substitutions === true).read();
  } catch (error) {
    if (error instanceof Stop) return error.result;
    throw error;
  }
}

type Heredoc = { delimiter: string; quoted: boolean; stripTabs: boolean };
type Read = { text: string; literal: boolean; parts: WordPart[] };

class Reader {
  private readonly commands: SimpleCommand[] = [];
  private current: SimpleCommand = empty();
  private heredocs: Heredoc[] = [];
  private depth = 0;
  private grouped = false;

  /**
   * `closing`: the reader of a `$(…)` or `<(…)`, which ends at its unmatched `)`; `i` is where
   * it starts reading.
   */
  constructor(
    private readonly s: string,
    private readonly nested: boolean,
    private i = 0,
    private readonly closing = false,
  ) {}

  read(): ParsedLine {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i] ?? "";
      if (BLANK.has(c)) {
        this.i++;
      } else if (c === "\n") {
        this.i++;
        this.end();
        this.readHeredocs();
      } else if (c === "#") {
        while (this.i < s.length && s[this.i] !== "\n") this.i++;
      } else if (c === "(") {
        if (!isEmpty(this.current)) unreadable("a ( in the middle of a command");
        this.i++;
        this.depth++;
        this.grouped = true;
      } else if (c === ")") {
        if (this.depth === 0 && this.closing) {
          this.i++;
          return this.finish();
        }
        if (this.depth === 0) unreadable("a ) without its (");
        this.i++;
        this.depth--;
        this.end();
      } else if (this.nested && (c === "<" || c === ">") && s[this.i + 1] === "(") {
        this.word();
      } else if (c === "<" || c === ">" || s.startsWith("&>", this.i)) {
        this.redirect(null);
      } else if (c === ";" || c === "&" || c === "|") {
        if (s.startsWith(";;", this.i) || s.startsWith(";&", this.i)) unreadable("a case clause");
        const op = OPERATORS.find((o) => s.startsWith(o, this.i)) ?? c;
        this.i += op.length;
        this.end();
      } else {
        this.word();
      }
    }
    if (this.closing) unreadable("a $( or <( without its )");
    return this.finish();
  }

  private finish(): ParsedLine {
    if (this.heredocs.length > 0) unreadable("a here-document that never ends");
    if (this.depth > 0) unreadable("a ( without its )");
    this.end();
    return { kind: "commands", commands: this.commands, grouped: this.grouped };
  }

  private end(): void {
    if (!isEmpty(this.current)) this.commands.push(this.current);
    this.current = empty();
  }

  private word(): void {
    const start = this.i;
    const word = this.readWord();
    const raw = this.s.slice(start, this.i);
    const next = this.s[this.i];
    if ((next === "<" || next === ">") && /^[0-9]+$/.test(raw)) {
      this.redirect(Number(raw));
      return;
    }
    if (this.current.words.length === 0 && ASSIGNMENT.test(raw)) {
      this.current.assignments.push(raw);
      return;
    }
    this.current.words.push({ text: word.text, literal: word.literal, parts: word.parts });
  }

  private redirect(fd: number | null): void {
    const s = this.s;
    if (!this.nested && (s.startsWith("<(", this.i) || s.startsWith(">(", this.i))) substitutes();
    const op = REDIRECTS.find((o) => s.startsWith(o, this.i));
    if (!op) return unreadable("an unknown redirection");
    this.i += op.length;
    while (BLANK.has(s[this.i] ?? "")) this.i++;
    const atProcess = this.nested && (s.startsWith("<(", this.i) || s.startsWith(">(", this.i));
    if (this.i >= s.length || (META.has(s[this.i] ?? "") && !atProcess)) unreadable(`${op} without a target`);
    // bash reads a # here as a comment, leaving the redirection without its target.
    if (s[this.i] === "#") unreadable(`${op} followed by a comment`);
    const target = this.readWord();
    if (op === "<<" || op === "<<-") {
      this.heredocs.push({ delimiter: target.text, quoted: target.quoted, stripTabs: op === "<<-" });
    }
    this.current.redirects.push({ fd, op, target: { text: target.text, literal: target.literal, parts: target.parts } });
  }

  /** The bodies of the here-documents the line just ended opened, in order. */
  private readHeredocs(): void {
    for (const doc of this.heredocs) {
      for (;;) {
        if (this.i >= this.s.length) unreadable(`a here-document without its ${doc.delimiter}`);
        const eol = this.s.indexOf("\n", this.i);
        const lineEnd = eol === -1 ? this.s.length : eol;
        const text = this.s.slice(this.i, lineEnd);
        this.i = eol === -1 ? this.s.length : eol + 1;
        if ((doc.stripTabs ? text.replace(/^\t+/, "") : text) === doc.delimiter) break;
        if (doc.quoted || !expandsCommands(text)) continue;
        if (!this.nested) substitutes();
        // An unquoted body expands as a "…" does, with its " kept: its substitutions run.
        const body = new Reader(text, true);
        body.readQuoted(false);
        this.commands.push(...body.commands);
      }
    }
    this.heredocs = [];
  }

  /** Reads one word up to a blank or an operator: quotes removed, expansions kept as written. */
  private readWord(): Read & { quoted: boolean } {
    const s = this.s;
    const word = new WordBuilder();
    let quoted = false;
    const first = this.i;
    while (this.i < s.length) {
      const c = s[this.i] ?? "";
      if (this.nested && this.i === first && (c === "<" || c === ">") && s[this.i + 1] === "(") {
        this.readNested(this.i + 2);
        word.unknown("<(…)", false);
        continue;
      }
      if (META.has(c)) break;
      if (c === "\\") {
        quoted = true;
        word.text(s[this.i + 1] ?? "", true);
        this.i += 2;
      } else if (c === "'") {
        quoted = true;
        const close = s.indexOf("'", this.i + 1);
        if (close === -1) unreadable("a ' that is never closed");
        word.text(s.slice(this.i + 1, close), true);
        this.i = close + 1;
      } else if (c === '"') {
        quoted = true;
        this.i++;
        word.add(this.readQuoted(true));
      } else if (c === "`") {
        this.readBackticks(false);
        word.unknown("`…`", false);
      } else if (c === "$") {
        word.add(this.readDollar(false));
      } else {
        if ("*?[{".includes(c) || (c === "~" && this.i === first)) word.notLiteral();
        word.text(c, false);
        this.i++;
      }
    }
    return { ...word.done(), quoted };
  }

  /**
   * What follows a `"` up to its closing one; unterminated (`terminated` false), the whole text,
   * as an unquoted here-document's body reads.
   */
  readQuoted(terminated: boolean): Read {
    const s = this.s;
    const word = new WordBuilder();
    while (this.i < s.length) {
      const c = s[this.i] ?? "";
      if (c === '"' && terminated) {
        this.i++;
        return word.done();
      }
      if (c === "\\") {
        const next = s[this.i + 1] ?? "";
        word.text("$`\"\\".includes(next) ? next : `\\${next}`, true);
        this.i += 2;
      } else if (c === "`") {
        this.readBackticks(true);
        word.unknown("`…`", true);
      } else if (c === "$") {
        word.add(this.readDollar(true));
      } else {
        word.text(c, true);
        this.i++;
      }
    }
    if (!terminated) return word.done();
    return unreadable('a " that is never closed');
  }

  /** A `$…` expansion, as written; substitutions stop the reading unless they are read. */
  private readDollar(inDoubleQuotes: boolean): Read {
    const s = this.s;
    const next = s[this.i + 1] ?? "";
    if (next === "(" && s[this.i + 2] === "(") return this.readArithmetic(inDoubleQuotes);
    if (next === "(") {
      if (!this.nested) substitutes();
      this.readNested(this.i + 2);
      return unknownRead("$(…)", inDoubleQuotes);
    }
    if (next === "[") substitutes();
    if (next === "{") {
      const close = s.indexOf("}", this.i);
      const inner = close === -1 ? "" : s.slice(this.i + 2, close);
      // ${name} only: operators, subscripts, indirection and transformations (${x@P}) can run code.
      if (!/^([A-Za-z_][A-Za-z0-9_]*|[0-9]+)$/.test(inner)) substitutes();
      this.i = close + 1;
      return { text: `\${${inner}}`, literal: false, parts: [{ kind: "var", name: inner, quoted: inDoubleQuotes }] };
    }
    if (!inDoubleQuotes && (next === "'" || next === '"')) {
      // $'…' and $"…" mean something other than their letters: never literal.
      this.i++;
      if (next === '"') {
        this.i++;
        const inner = this.readQuoted(true);
        return { text: `$${inner.text}`, literal: false, parts: inner.parts };
      }
      const raw = this.readAnsiC();
      const decoded = decodeAnsiC(raw);
      return { text: `$${raw}`, literal: false, parts: [decoded === null ? { kind: "unknown", quoted: true } : { kind: "text", text: decoded, quoted: true }] };
    }
    const name = /^([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!_-])/.exec(s.slice(this.i + 1));
    if (!name) {
      this.i++;
      // A $ before a quote or a backslash is where bash's reading and ours may part: never literal.
      const literal = !"'\"\\".includes(next);
      return { text: "$", literal, parts: [literal ? { kind: "text", text: "$", quoted: true } : { kind: "unknown", quoted: inDoubleQuotes }] };
    }
    this.i += 1 + (name[1]?.length ?? 0);
    return { text: `$${name[1]}`, literal: false, parts: [{ kind: "var", name: name[1] ?? "", quoted: inDoubleQuotes }] };
  }

  /** `$((…))`: a number only running tells, when it holds plain arithmetic and substitutions are read. */
  private readArithmetic(inDoubleQuotes: boolean): Read {
    if (!this.nested) substitutes();
    const s = this.s;
    let depth = 0;
    for (let j = this.i + 3; j < s.length; j++) {
      if (s[j] === "(") depth++;
      else if (s[j] === ")" && depth > 0) depth--;
      else if (s[j] === ")" && s[j + 1] === ")") {
        if (!PLAIN_ARITHMETIC.test(s.slice(this.i + 3, j))) substitutes();
        this.i = j + 2;
        return unknownRead("$((…))", inDoubleQuotes);
      } else if (s[j] === ")") break;
    }
    return substitutes();
  }

  /** The commands of a `$(…)` or `<(…)` whose text starts at `from`, read up to its `)`. */
  private readNested(from: number): void {
    const inner = new Reader(this.s, true, from, true);
    inner.read();
    this.commands.push(...inner.commands);
    if (inner.grouped) this.grouped = true;
    this.i = inner.i;
  }

  /** A `` `…` ``: its text, with the backslashes bash takes out, read as a line of its own. */
  private readBackticks(inDoubleQuotes: boolean): void {
    if (!this.nested) substitutes();
    const s = this.s;
    let inner = "";
    let j = this.i + 1;
    while (j < s.length && s[j] !== "`") {
      const next = s[j + 1] ?? "";
      if (s[j] === "\\" && ("$`\\".includes(next) || (inDoubleQuotes && next === '"'))) {
        inner += next;
        j += 2;
      } else if (s[j] === "\\") {
        inner += `\\${next}`;
        j += 2;
      } else {
        inner += s[j];
        j++;
      }
    }
    if (j >= s.length) unreadable("a ` that is never closed");
    this.i = j + 1;
    const reader = new Reader(inner, true);
    reader.read();
    this.commands.push(...reader.commands);
    if (reader.grouped) this.grouped = true;
  }

  private readAnsiC(): string {
    const s = this.s;
    let text = "";
    this.i++;
    while (this.i < s.length) {
      const c = s[this.i] ?? "";
      if (c === "'") {
        this.i++;
        return text;
      }
      const take = c === "\\" ? 2 : 1;
      text += s.slice(this.i, this.i + take);
      this.i += take;
    }
    return unreadable("a $' that is never closed");
  }
}

/** Builds a word's text (as written, for display and keys) and its parts (for expansion). */
class WordBuilder {
  private textSoFar = "";
  private literal = true;
  private readonly parts: WordPart[] = [];

  text(text: string, quoted: boolean): void {
    this.textSoFar += text;
    const last = this.parts.at(-1);
    if (last?.kind === "text" && last.quoted === quoted) last.text += text;
    else this.parts.push({ kind: "text", text, quoted });
  }

  unknown(shown: string, quoted: boolean): void {
    this.textSoFar += shown;
    this.literal = false;
    this.parts.push({ kind: "unknown", quoted });
  }

  add(read: Read): void {
    this.textSoFar += read.text;
    this.literal &&= read.literal;
    for (const part of read.parts) {
      if (part.kind === "text") {
        const last = this.parts.at(-1);
        if (last?.kind === "text" && last.quoted === part.quoted) last.text += part.text;
        else this.parts.push({ ...part });
      } else {
        this.parts.push(part);
      }
    }
  }

  notLiteral(): void {
    this.literal = false;
  }

  done(): Read {
    return { text: this.textSoFar, literal: this.literal, parts: this.parts };
  }
}

function unknownRead(shown: string, quoted: boolean): Read {
  return { text: shown, literal: false, parts: [{ kind: "unknown", quoted }] };
}

/** Whether text in an unquoted here-document would run something when expanded. */
function expandsCommands(text: string): boolean {
  if (/\$\(|\$\[|`/.test(text)) return true;
  return /\$\{(?![A-Za-z_][A-Za-z0-9_]*\}|[0-9]+\})/.test(text);
}

function empty(): SimpleCommand {
  return { assignments: [], words: [], redirects: [] };
}

function isEmpty(command: SimpleCommand): boolean {
  return command.assignments.length === 0 && command.words.length === 0 && command.redirects.length === 0;
}
