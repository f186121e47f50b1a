import { basename } from "node:path";
import { parseCommandLine, type Redirect, type SimpleCommand, type Word } from "./command-line.ts";
import { gitReads, gitWrites, readGitLine } from "./command-git.ts";
import { type CommandPlace, Places } from "./command-places.ts";
import { treesRead } from "./command-reads.ts";
import { expandWord, literalWord, type Values } from "./command-words.ts";
import { writtenPaths } from "./command-writes.ts";

/**
 * What makes even auto mode ask before a line: a word that names a protected path (`~/.ssh/id_rsa`
 * as much as `.env`), a write outside the project or to a protected path (a redirection's, a
 * writer's: `cp`, `tee`, `touch`, `curl -o`…), a cd out of the project (what follows it is
 * outside), a reader of whole trees that hold protected files (`grep -r`, `tar c`, `git show` of
 * a tracked `.env`), and a word in such a place that only running tells (`$FILE`, `$(…)`).
 */
export function plainConcern(line: string, place: CommandPlace): string | null {
  const places = Places.of(place);
  if (!places) return "where it runs cannot be told for certain";
  const parsed = parseCommandLine(line, { substitutions: true });
  if (parsed.kind === "unreadable") return roughConcern(line, places) ?? `it cannot be read for certain (${parsed.why}), so what it reads and writes cannot be told`;
  if (parsed.kind === "substitutes") return roughConcern(line, places) ?? "it holds an expansion only running tells (${…} with an operator, $[…]), so what it reads and writes cannot be told";
  const walk = new LineWalk(places);
  for (const command of parsed.commands) {
    const concern = walk.judge(command);
    if (concern) return concern;
  }
  return null;
}

/** Programs that open no path their arguments name: a word only running tells is no concern there. */
const NO_PATHS = new Set(["echo", "printf", "true", "false", ":", "test", "[", "[[", "]]", "exit", "return", "break", "continue", "shift", "let"]);
/** Reserved words that open or close a compound command: what follows them is the command. */
const KEYWORDS = new Set(["if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time"]);
/** Variables that change how bash reads the words after them (where cd goes, what a glob matches, how words split). */
const SHELL_STATE = new Set(["CDPATH", "GLOBIGNORE", "IFS", "BASHOPTS", "SHELLOPTS"]);
const DECLARERS = new Set(["export", "declare", "typeset", "local", "readonly"]);
/** Builtins that set the variables they name, to what only running tells. */
const SETTERS = new Set(["read", "mapfile", "readarray", "getopts", "unset", "printf", "wait", "let"]);
/** What sets variables of its own choosing. */
const UNKNOWABLE = new Set(["source", ".", "eval"]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ASSIGNS = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?(\+?)=/;
const WRITES = new Set<Redirect["op"]>([">", ">>", ">|", "&>", "&>>", "<>"]);
const READS = new Set<Redirect["op"]>(["<", "<>"]);
const DESCRIPTOR = /^([0-9]+|-)$/;

/**
 * The commands of one line in order, with what the line itself tells of its variables: $HOME,
 * a `for` loop's words inside its body, and what its assignments may have set.
 */
class LineWalk {
  private readonly vars = new Map<string, Values>();
  /** The `do … done` bodies open, with the loop variable each sets. */
  private readonly bodies: (string | null)[] = [];
  private loop: { name: string; values: Values } | null = null;

  constructor(private readonly places: Places) {
    this.vars.set("HOME", [literalWord(places.home)]);
  }

  private readonly lookup = (name: string): Values => this.vars.get(name) ?? null;

  judge(command: SimpleCommand): string | null {
    let words = command.words;
    while (words[0]?.literal && KEYWORDS.has(words[0].text)) {
      this.keyword(words[0].text);
      words = words.slice(1);
    }
    // Alone, an assignment changes the shell; before a command, only what that command reads (cd, CDPATH).
    const state = command.assignments.map((a) => ASSIGNS.exec(a)?.[1] ?? "").find((name) => (words.length === 0 ? SHELL_STATE.has(name) : name === "CDPATH"));
    if (state) return `it sets ${state}, which changes how bash reads the rest of the line`;
    if (words.length === 0) {
      for (const assignment of command.assignments) this.assign(assignment);
      return this.redirects(command.redirects);
    }
    const program = words[0] as Word;
    if (program.literal && (program.text === "for" || program.text === "select")) return this.forLoop(words.slice(1));
    const expanded = expandWord(program, this.lookup);
    if (expanded === null || expanded.length !== 1) return `its program (${program.text}) is only known when it runs`;
    const name = basename(expanded[0]?.text ?? "").toLowerCase();
    const learned = this.learn(name, words.slice(1));
    if (learned) return learned;
    const args: Word[] = [];
    for (const word of words.slice(1)) {
      const as = expandWord(word, this.lookup);
      if (as !== null) args.push(...as);
      else if (!NO_PATHS.has(name) && !(DECLARERS.has(name) && ASSIGNS.test(word.text))) return `${word.text} is only known when it runs, and may name any path`;
    }
    const named = [...expanded, ...args].find((word) => this.places.plainlyNamesProtected(word));
    if (named) return `${named.text} is a protected path`;
    return this.redirects(command.redirects) ?? this.byProgram(name, args);
  }

  /** What the program does with its arguments: where it goes, writes, and what trees it reads. */
  private byProgram(name: string, args: Word[]): string | null {
    if (name === "cd" || name === "pushd") return this.cd(name, args);
    if (name === "shopt") return "it changes how bash expands words (shopt)";
    const written = writtenPaths(name, args);
    if ("unknown" in written) return `where it writes cannot be told before it runs (${written.unknown})`;
    const outside = written.find((word) => !this.places.writableWord(word));
    if (outside) return `it writes to ${outside.text}, outside the project or a protected path`;
    const trees = treesRead(name, args);
    const tree = trees ? this.places.treeConcern(trees) : null;
    if (tree) return tree;
    return name === "git" ? this.git(args) : null;
  }

  private git(args: Word[]): string | null {
    const line = readGitLine(args);
    if (line.elsewhere) return "it names a git directory or work tree of its own";
    const away = line.directories.find((dir) => !dir.literal || !this.places.inside(dir.text));
    if (away) return `it runs git in ${away.text}, outside the project (or where it cannot be told)`;
    if (!line.sub?.literal) return null;
    const outside = gitWrites(line.sub.text, line.args).find((word) => !this.places.writableWord(word));
    if (outside) return `it writes to ${outside.text}, outside the project or a protected path`;
    const read = gitReads(line.sub.text, line.args);
    return read ? this.places.gitConcern(read) : null;
  }

  private cd(name: string, args: Word[]): string | null {
    const operands = args.filter((a) => !/^-[LPe@]+$/.test(a.text));
    if (name === "pushd" && (operands.length === 0 || /^[+-][0-9]+$/.test(operands[0]?.text ?? ""))) return null;
    const target = operands.length === 0 ? literalWord(this.places.home) : operands[0];
    if (operands.length > 1 || !target?.literal || target.text === "-" || !this.places.cd(target.text)) {
      return `it changes to ${target?.text ?? "another directory"}, outside the project (or where it cannot be told)`;
    }
    return null;
  }

  private redirects(redirects: readonly Redirect[]): string | null {
    for (const redirect of redirects) {
      const op = redirect.op;
      if (op === "<<" || op === "<<-" || op === "<<<") continue;
      if ((op === ">&" || op === "<&") && DESCRIPTOR.test(redirect.target.text)) continue;
      const targets = expandWord(redirect.target, this.lookup);
      if (targets === null) return `it redirects to ${redirect.target.text}, only known when it runs`;
      const read = READS.has(op) && targets.find((t) => this.places.plainlyNamesProtected(t));
      if (read) return `it reads ${read.text}, a protected path`;
      const writes = WRITES.has(op) || op === ">&";
      const outside = writes && targets.find((t) => !this.places.writableWord(t));
      if (outside) return `it writes to ${outside.text}, outside the project or a protected path`;
    }
    return null;
  }

  /** `for NAME in WORDS`: the body that follows sees NAME as each of them. */
  private forLoop(words: Word[]): string | null {
    const [variable, keyword, ...list] = words;
    if (!variable?.literal || !NAME.test(variable.text)) return "it loops in a way not read here";
    if (SHELL_STATE.has(variable.text)) return `it sets ${variable.text}, which changes how bash reads the rest of the line`;
    if (keyword?.text !== "in") {
      this.loop = { name: variable.text, values: null };
      return null;
    }
    const values: Word[] = [];
    for (const word of list) {
      const as = expandWord(word, this.lookup);
      if (as === null) {
        this.loop = { name: variable.text, values: null };
        return null;
      }
      values.push(...as);
    }
    const named = values.find((word) => this.places.plainlyNamesProtected(word));
    if (named) return `${named.text} is a protected path`;
    this.loop = { name: variable.text, values };
    return null;
  }

  private keyword(word: string): void {
    if (word === "do") {
      const loop = this.loop;
      this.loop = null;
      if (loop) this.vars.set(loop.name, loop.values);
      this.bodies.push(loop?.name ?? null);
    } else if (word === "done") {
      const name = this.bodies.pop();
      // After the loop the variable holds its last word, or what it held before when there was none.
      if (name) this.vars.set(name, null);
    }
  }

  /** What a builtin sets: known values of a plain declaration, unknown ones otherwise. */
  private learn(name: string, args: Word[]): string | null {
    if (UNKNOWABLE.has(name)) {
      for (const key of this.vars.keys()) this.vars.set(key, null);
      return null;
    }
    const assigned = args.map((a) => ASSIGNS.exec(a.text)?.[1] ?? (NAME.test(a.text) ? a.text : null)).filter((n) => n !== null);
    const state = assigned.find((n) => SHELL_STATE.has(n));
    if ((DECLARERS.has(name) || SETTERS.has(name)) && state) return `it sets ${state}, which changes how bash reads the rest of the line`;
    if (SETTERS.has(name) || (DECLARERS.has(name) && args.some((a) => a.text.startsWith("-")))) {
      for (const n of assigned) this.vars.set(n, null);
      return null;
    }
    if (DECLARERS.has(name)) for (const arg of args) if (ASSIGNS.test(arg.text)) this.assignWord(arg);
    return null;
  }

  /** A `NAME=value` on its own: NAME may now hold the value, or what it held (the line may not have come here). */
  private assign(raw: string): void {
    const parsed = parseCommandLine(`: ${raw}`, { substitutions: true });
    const word = parsed.kind === "commands" ? parsed.commands[0]?.words[1] : undefined;
    const name = ASSIGNS.exec(raw)?.[1];
    if (!word || !name) {
      if (name) this.vars.set(name, null);
      return;
    }
    this.assignWord(word);
  }

  private assignWord(word: Word): void {
    const match = ASSIGNS.exec(word.text);
    const name = match?.[1];
    if (!match || !name) return;
    const expanded = match[2] || match[3] ? null : expandWord(word, this.lookup, { assignment: true });
    const before = this.lookup(name);
    if (expanded === null || expanded.length !== 1 || before === null) {
      this.vars.set(name, null);
      return;
    }
    const value = expanded[0] as Word;
    this.vars.set(name, [...before, { ...value, text: value.text.slice(match[0].length) }]);
  }
}

/** For a line the parser could not take apart: each plain word it holds, judged. */
function roughConcern(line: string, places: Places): string | null {
  for (const text of line.split(/[\s;&|()<>`"'{}]+/)) {
    if (text === "" || text.includes("$") || text.includes("\\")) continue;
    const expanded = text.startsWith("~/") ? `${places.home}${text.slice(1)}` : text;
    if (places.plainlyNamesProtected({ ...literalWord(expanded), literal: !/[*?[]/.test(expanded) })) return `${text} is a protected path`;
  }
  return null;
}
