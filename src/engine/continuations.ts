/**
 * Bash's input layer removes every `\`+newline before the parser sees the line, except inside
 * '…', $'…', comments, and here-document bodies whose delimiter is quoted. In an unquoted
 * here-document it joins the lines first, then compares the joined line with the delimiter and
 * expands it. Reading the line after the same removal is the only way to see what bash sees:
 * `$\`+newline+`(id)` is `$(id)`, and `EO\`+newline+`F` ends a here-document.
 */
export type Joined = { text: string } | { unreadable: string };

type Pending = { delimiter: string; quoted: boolean; stripTabs: boolean };

/** After these (or at the start) a `#` starts a comment, as it does for the reader. */
const COMMENT_AFTER = new Set(["", " ", "\t", "\n", ";", "&", "|", "(", ")"]);
const WORD_END = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);

export function joinContinuations(line: string): Joined {
  try {
    return { text: new Joiner(line).join() };
  } catch (error) {
    if (error instanceof Refusal) return { unreadable: error.why };
    throw error;
  }
}

class Refusal {
  constructor(readonly why: string) {}
}

class Joiner {
  private i = 0;
  private out = "";
  private pending: Pending[] = [];

  constructor(private readonly s: string) {}

  join(): string {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i] ?? "";
      if (c === "\\") this.escaped();
      else if (c === "'") this.copyQuoted(this.i + 1, false);
      else if (c === "$" && s[this.i + 1] === "'") this.copyQuoted(this.i + 2, true);
      else if (c === '"') this.doubleQuoted();
      else if (c === "#" && COMMENT_AFTER.has(this.out.at(-1) ?? "")) this.copyUntilNewline();
      else if (c === "<") this.angle();
      else this.take(1);
      if (c === "\n") this.bodies();
    }
    return this.out;
  }

  private take(n: number): void {
    this.out += this.s.slice(this.i, this.i + n);
    this.i += n;
  }

  /** The index after any run of `\`+newline at `at`. */
  private skipJoins(at: number): number {
    let j = at;
    while (this.s.startsWith("\\\n", j)) j += 2;
    return j;
  }

  private escaped(): void {
    if (this.s[this.i + 1] === "\n") this.i += 2;
    else this.take(2);
  }

  /** '…' or $'…' (from its opening), copied as written; in $'…' a backslash escapes the next character. */
  private copyQuoted(from: number, ansi: boolean): void {
    let j = from;
    while (j < this.s.length && this.s[j] !== "'") j += ansi && this.s[j] === "\\" ? 2 : 1;
    this.take(Math.min(j + 1, this.s.length) - this.i);
  }

  private doubleQuoted(): void {
    this.take(1);
    while (this.i < this.s.length && this.s[this.i] !== '"') {
      if (this.s[this.i] === "\\") this.escaped();
      else this.take(1);
    }
    this.take(1);
  }

  private copyUntilNewline(): void {
    const eol = this.s.indexOf("\n", this.i);
    this.take((eol === -1 ? this.s.length : eol) - this.i);
  }

  /** `<`, `<<<`, or a here-document's `<<`/`<<-` and its delimiter, which the bodies after the newline need. */
  private angle(): void {
    const second = this.skipJoins(this.i + 1);
    if (this.s[second] !== "<") return this.take(1);
    const third = this.skipJoins(second + 1);
    if (this.s[third] === "<") {
      this.out += "<<<";
      this.i = third + 1;
      return;
    }
    const stripTabs = this.s[third] === "-";
    this.out += stripTabs ? "<<-" : "<<";
    this.i = stripTabs ? this.skipJoins(third + 1) : third;
    while (this.s[this.i] === " " || this.s[this.i] === "\t") this.take(1);
    const start = this.out.length;
    this.delimiterWord();
    const raw = this.out.slice(start);
    if (/[$`]/.test(raw)) throw new Refusal("a here-document delimiter with $ or `");
    this.pending.push({ delimiter: unquote(raw), quoted: /['"\\]/.test(raw), stripTabs });
  }

  private delimiterWord(): void {
    while (this.i < this.s.length) {
      this.i = this.skipJoins(this.i);
      const c = this.s[this.i] ?? "";
      if (c === "" || WORD_END.has(c)) return;
      if (c === "'") this.copyQuoted(this.i + 1, false);
      else if (c === '"') this.doubleQuoted();
      else if (c === "\\") this.take(2);
      else this.take(1);
    }
  }

  /** The bodies of the here-documents the line just ended opened, in order. */
  private bodies(): void {
    for (const doc of this.pending) {
      for (;;) {
        if (this.i >= this.s.length) return;
        let text = this.physicalLine();
        while (!doc.quoted && endsInContinuation(text) && this.i < this.s.length) {
          if (doc.stripTabs) throw new Refusal("a line continued in a <<- here-document");
          text = text.slice(0, -1) + this.physicalLine();
        }
        this.out += text;
        if (this.s[this.i - 1] === "\n") this.out += "\n";
        if ((doc.stripTabs ? text.replace(/^\t+/, "") : text) === doc.delimiter) break;
      }
    }
    this.pending = [];
  }

  /** The rest of the physical line (without its newline), the index moved past the newline. */
  private physicalLine(): string {
    const eol = this.s.indexOf("\n", this.i);
    const end = eol === -1 ? this.s.length : eol;
    const text = this.s.slice(this.i, end);
    this.i = eol === -1 ? end : end + 1;
    return text;
  }
}

/** A line ending in an odd number of backslashes: the last one escapes the newline. */
function endsInContinuation(text: string): boolean {
  const trailing = /\\*$/.exec(text)?.[0].length ?? 0;
  return trailing % 2 === 1;
}

/** A delimiter's text after quote removal. */
function unquote(raw: string): string {
  let text = "";
  for (let j = 0; j < raw.length; j++) {
    const c = raw[j] ?? "";
    if (c === "'") {
      const close = raw.indexOf("'", j + 1);
      text += raw.slice(j + 1, close === -1 ? raw.length : close);
      j = close === -1 ? raw.length : close;
    } else if (c === '"') {
      for (j++; j < raw.length && raw[j] !== '"'; j++) {
        if (raw[j] === "\\" && '$`"\\'.includes(raw[j + 1] ?? "")) j++;
        text += raw[j] ?? "";
      }
    } else if (c === "\\") {
      j++;
      text += raw[j] ?? "";
    } else {
      text += c;
    }
  }
  return text;
}
