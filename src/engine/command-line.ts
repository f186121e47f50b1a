import { joinContinuations } from "./continuations.ts";

/**
 * Reads a bash command line far enough to say which simple commands it runs, with what words and
 * redirections. It does not run or expand anything: it is for judging a line before it runs, so
 * whatever it cannot read for certain makes the line "substitutes" or "unreadable", never a guess.
 */

/** A word after quote removal; literal when the shell expands nothing in it (no $, glob, brace or ~). */
export type Word = { text: string; literal: boolean };

/** A redirection: `2>&1` is { fd: 2, op: ">&", target: "1" }; a here-document's target is its delimiter. */
export type Redirect = { fd: number | null; op: RedirectOp; target: Word };
export type RedirectOp = ">" | ">>" | ">|" | "&>" | "&>>" | "<>" | ">&" | "<" | "<&" | "<<" | "<<-" | "<<<";

/** One simple command: leading assignments (`CI=1`), its words, and its redirections. */
export type SimpleCommand = { assignments: string[]; words: Word[]; redirects: Redirect[] };

export type ParsedLine =
  /** grouped: some commands run in a subshell `( … )`. */
  | { kind: "commands"; commands: SimpleCommand[]; grouped: boolean }
  /** The line runs commands of its own making: $(…), `…`, <(…), >(…), $((…)), ${…} beyond a name. */
  | { kind: "substitutes" }
  | { kind: "unreadable"; why: string };

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

/** Parses a command line as bash would read it. */
export function parseCommandLine(line: string): ParsedLine {
  const joined = joinContinuations(line);
  if ("unreadable" in joined) return { kind: "unreadable", why: joined.unreadable };
  try {
    return new Reader(joined.text).read();
  } catch (error) {
    if (error instanceof Stop) return error.result;
    throw error;
  }
}

type Heredoc = { delimiter: string; quoted: boolean; stripTabs: boolean };

class Reader {
  private i = 0;
  private readonly commands: SimpleCommand[] = [];
  private current: SimpleCommand = empty();
  private heredocs: Heredoc[] = [];
  private depth = 0;
  private grouped = false;

  constructor(private readonly s: string) {}

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
        if (this.depth === 0) unreadable("a ) without its (");
        this.i++;
        this.depth--;
        this.end();
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
    this.current.words.push({ text: word.text, literal: word.literal });
  }

  private redirect(fd: number | null): void {
    const s = this.s;
    if (s.startsWith("<(", this.i) || s.startsWith(">(", this.i)) substitutes();
    const op = REDIRECTS.find((o) => s.startsWith(o, this.i));
    if (!op) return unreadable("an unknown redirection");
    this.i += op.length;
    while (BLANK.has(s[this.i] ?? "")) this.i++;
    if (this.i >= s.length || META.has(s[this.i] ?? "")) unreadable(`${op} without a target`);
    // bash reads a # here as a comment, leaving the redirection without its target.
    if (s[this.i] === "#") unreadable(`${op} followed by a comment`);
    const target = this.readWord();
    if (op === "<<" || op === "<<-") {
      this.heredocs.push({ delimiter: target.text, quoted: target.quoted, stripTabs: op === "<<-" });
    }
    this.current.redirects.push({ fd, op, target: { text: target.text, literal: target.literal } });
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
        if (!doc.quoted && expandsCommands(text)) substitutes();
      }
    }
    this.heredocs = [];
  }

  /** Reads one word up to a blank or an operator: quotes removed, expansions kept as written. */
  private readWord(): { text: string; literal: boolean; quoted: boolean } {
    const s = this.s;
    let text = "";
    let literal = true;
    let quoted = false;
    const first = this.i;
    while (this.i < s.length) {
      const c = s[this.i] ?? "";
      if (META.has(c)) break;
      if (c === "\\") {
        quoted = true;
        text += s[this.i + 1] ?? "";
        this.i += 2;
      } else if (c === "'") {
        quoted = true;
        const close = s.indexOf("'", this.i + 1);
        if (close === -1) unreadable("a ' that is never closed");
        text += s.slice(this.i + 1, close);
        this.i = close + 1;
      } else if (c === '"') {
        quoted = true;
        const inner = this.readDoubleQuoted();
        text += inner.text;
        literal &&= inner.literal;
      } else if (c === "`") {
        substitutes();
      } else if (c === "$") {
        const dollar = this.readDollar(false);
        text += dollar.text;
        literal &&= dollar.literal;
      } else {
        if ("*?[{".includes(c) || (c === "~" && this.i === first)) literal = false;
        text += c;
        this.i++;
      }
    }
    return { text, literal, quoted };
  }

  private readDoubleQuoted(): { text: string; literal: boolean } {
    const s = this.s;
    let text = "";
    let literal = true;
    this.i++;
    while (this.i < s.length) {
      const c = s[this.i] ?? "";
      if (c === '"') {
        this.i++;
        return { text, literal };
      }
      if (c === "\\") {
        const next = s[this.i + 1] ?? "";
        if ("$`\"\\".includes(next)) text += next;
        else text += `\\${next}`;
        this.i += 2;
      } else if (c === "`") {
        substitutes();
      } else if (c === "$") {
        const dollar = this.readDollar(true);
        text += dollar.text;
        literal &&= dollar.literal;
      } else {
        text += c;
        this.i++;
      }
    }
    return unreadable('a " that is never closed');
  }

  /** A `$…` expansion, as written; substitutions stop the reading. */
  private readDollar(inDoubleQuotes: boolean): { text: string; literal: boolean } {
    const s = this.s;
    const next = s[this.i + 1] ?? "";
    if (next === "(" || next === "[") substitutes();
    if (next === "{") {
      const close = s.indexOf("}", this.i);
      const inner = close === -1 ? "" : s.slice(this.i + 2, close);
      // ${name} only: operators, subscripts, indirection and transformations (${x@P}) can run code.
      if (!/^([A-Za-z_][A-Za-z0-9_]*|[0-9]+)$/.test(inner)) substitutes();
      this.i = close + 1;
      return { text: `\${${inner}}`, literal: false };
    }
    if (!inDoubleQuotes && (next === "'" || next === '"')) {
      // $'…' and $"…" mean something other than their letters: never literal.
      this.i++;
      const word = next === "'" ? this.readAnsiC() : this.readDoubleQuoted().text;
      return { text: `$${word}`, literal: false };
    }
    const name = /^([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!_-])/.exec(s.slice(this.i + 1));
    if (!name) {
      this.i++;
      // A $ before a quote or a backslash is where bash's reading and ours may part: never literal.
      return { text: "$", literal: !"'\"\\".includes(next) };
    }
    this.i += 1 + (name[1]?.length ?? 0);
    return { text: `$${name[1]}`, literal: false };
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
