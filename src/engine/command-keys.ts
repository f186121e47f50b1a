import { basename } from "node:path";
import { gitReads, gitWrites } from "./command-git.ts";
import { parseCommandLine, type Redirect, type SimpleCommand, type Word } from "./command-line.ts";
import {
  HARMLESS_OPTIONS, INTERPRETERS, MAYBE_SCRIPT, NEVER, NEVER_SUBCOMMANDS, PROGRAM_RUNNERS, RECURSIVE_READERS, RUNNERS, SUBCOMMANDS,
} from "./command-names.ts";
import { listedOptions } from "./command-option-lists.ts";
import { type OptionList, scanOptions } from "./command-options.ts";
import { type CommandPlace, Places } from "./command-places.ts";
import { isWriter, removedPaths, writerOptions, writtenPaths } from "./command-writes.ts";

export type { CommandPlace } from "./command-places.ts";
export { plainConcern } from "./command-concern.ts";

/**
 * What "always allow" means for a command line: one key per simple command it runs (`git status`,
 * `npm test`, `ls`), or the reason it can never be allowed for a session.
 */
export type CommandKeys = { keys: string[] } | { never: string };

type Judged = { key: string[] } | { never: string };

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
/** Runners whose program may be a file of the project (`bun run build.ts`, `go run main.go`). */
const FILE_RUNNERS = new Set(["bun", "deno", "go", "uv"]);

/**
 * The keys of a command line. Every simple command must be one that can be allowed; `cd` into a
 * directory inside the project is harmless and needs no key. Redirections must write inside the
 * project, judged from every directory the line may be in when they happen; no word may name a
 * protected path.
 */
export function commandKeys(line: string, place: CommandPlace): CommandKeys {
  const parsed = parseCommandLine(line);
  if (parsed.kind === "substitutes") return { never: "it runs commands it builds itself ($(…), backticks, <(…))" };
  if (parsed.kind === "unreadable") return { never: `it cannot be read for certain (${parsed.why})` };
  if (parsed.grouped) return { never: "it runs commands in a subshell" };
  const places = Places.of(place);
  if (!places) return { never: "where it runs cannot be told for certain" };
  const keys: string[] = [];
  for (const command of parsed.commands) {
    const redirect = command.redirects.find((r) => !redirectFine(r, places));
    if (redirect) return { never: `it redirects to ${redirect.target.text}, which may be outside the project or protected` };
    const judged = judge(command, places);
    if ("never" in judged) return judged;
    if (judged.key.length === 0) continue;
    // A key is words joined by spaces: a word holding one ('git status') would pass for two.
    if (judged.key.some((word) => word === "" || /[\s\x00-\x1f\x7f]/.test(word))) return { never: "its program or subcommand is empty or holds spaces" };
    const key = judged.key.join(" ");
    if (!keys.includes(key)) keys.push(key);
  }
  return { keys };
}

const WRITES = new Set<Redirect["op"]>([">", ">>", ">|", "&>", "&>>", "<>"]);

function redirectFine(redirect: Redirect, places: Places): boolean {
  const target = redirect.target;
  if (redirect.op === "<<" || redirect.op === "<<-" || redirect.op === "<<<") return true;
  if ((redirect.op === ">&" || redirect.op === "<&") && /^([0-9]+|-)$/.test(target.text)) return true;
  if (redirect.op === "<&") return false;
  if (redirect.op === "<") return !places.mayNameProtected(target);
  if (!WRITES.has(redirect.op) && redirect.op !== ">&") return false;
  return target.literal && places.writable(target.text);
}

/** One simple command's key, as words; none for a harmless cd (which adds the directories it may lead to). */
function judge(command: SimpleCommand, places: Places): Judged {
  if (command.assignments.length > 0) return { never: "it sets variables for the commands it runs" };
  const [program, ...args] = command.words;
  if (!program) return { key: [] };
  if (!program.literal) return { never: `its program (${program.text}) is only known when it runs` };
  if (program.text === "cd") return cdInside(args, places);
  // Judged by name wherever it lives (/usr/bin/env is env), whatever its case (RM is rm on macOS).
  const name = basename(program.text).toLowerCase();
  if (NEVER.has(name)) return { never: `${name} is never allowed for a session` };
  const named = command.words.find((word) => places.mayNameProtected(word));
  if (named) return { never: `${named.text} is or may be a protected path, which no session key lets a command touch` };
  const refused = refusal(name, args, places);
  if (refused) return { never: refused };
  let programKey = program.text;
  if (program.text.includes("/")) {
    // ./test.sh from another directory is another file: keyed by where it is.
    const file = places.fileKey(program.text);
    if (file === null) return { never: `which file ${program.text} is depends on the directory it runs in` };
    if (NEVER.has(basename(file).toLowerCase())) return { never: `${program.text} is ${basename(file)}, never allowed for a session` };
    programKey = file;
  }
  if (!SUBCOMMANDS.has(name)) {
    const options = writerOptions(name) ?? listedOptions(name, null)?.options;
    const unlisted = options ? optionsRefusal(name, args, options, places) : null;
    return unlisted ? { never: unlisted } : { key: [programKey] };
  }
  return bySubcommand(name, programKey, args, places);
}

function bySubcommand(name: string, programKey: string, args: Word[], places: Places): Judged {
  const harmless = HARMLESS_OPTIONS[name];
  let rest = args;
  while (rest[0] && harmless?.has(rest[0].text)) rest = rest.slice(1);
  const [sub, next] = rest;
  if (!sub) return { key: [programKey] };
  const runner = RUNNERS[name]?.has(sub.text) ?? false;
  if (!sub.literal || (sub.text.startsWith("-") && !runner)) return { never: `options before ${name}'s subcommand can change what it runs` };
  if (NEVER_SUBCOMMANDS[name]?.has(sub.text)) return { never: `${name} ${sub.text} can run commands of its own choosing` };
  const script = !runner && (INTERPRETERS.has(name) || (MAYBE_SCRIPT.has(name) && looksLikeFile(sub.text)));
  if (script) return byScript(programKey, sub.text, places);
  if (PROGRAM_RUNNERS.has(name) && runsAnything(sub.text)) return { never: `${name} ${sub.text} can run anything` };
  const listed = listedOptions(name, sub.text);
  const unlisted = listed ? optionsRefusal(`${name} ${sub.text}`, rest.slice(1), listed.options, places, listed.untilOperand) : null;
  if (unlisted) return { never: unlisted };
  if (name === "git") {
    const outside = gitWrites(sub.text, rest.slice(1)).find((word) => !word.literal || !places.writable(word.text));
    if (outside) return { never: `git ${sub.text} writes to ${outside.text}, which may be outside the project or protected` };
    const read = gitReads(sub.text, rest.slice(1));
    const shown = read ? places.gitConcern(read) : null;
    if (shown) return { never: shown };
  }
  if (!runner || !next) return { key: [programKey, sub.text] };
  if (!next.literal || next.text.startsWith("-")) return { never: `what ${name} ${sub.text} runs is not named plainly` };
  if (runsAnything(next.text)) return { never: `${name} ${sub.text} ${next.text} can run anything` };
  if (FILE_RUNNERS.has(name) && looksLikeFile(next.text)) {
    const script = places.fileKey(next.text);
    if (script === null) return { never: `which file ${next.text} is depends on the directory it runs in` };
    return { key: [programKey, sub.text, script] };
  }
  return { key: [programKey, sub.text, next.text] };
}

/** An interpreter and its script, the script keyed by where it is (`node ./build.js`). */
function byScript(programKey: string, script: string, places: Places): Judged {
  const file = places.fileKey(script);
  if (file === null) return { never: `which file ${script} is depends on the directory it runs in` };
  return { key: [programKey, file] };
}

/**
 * Why the options of a program with a list are not all a session key covers: one outside its
 * list (it may run another program), or a path one writes to outside the project.
 */
function optionsRefusal(what: string, args: Word[], options: OptionList, places: Places, untilOperand = false): string | null {
  const scanned = scanOptions(args, options, untilOperand);
  const unlisted = scanned.unlisted[0];
  if (unlisted) return `${what} ${unlisted.text} is not among the options an "always" for ${what} covers (some run another program or write where they say)`;
  const outside = scanned.writes.find((word) => !word.literal || !places.writable(word.text));
  return outside ? `${what} writes to ${outside.text}, which may be outside the project or protected` : null;
}

/** Why a program's arguments make it unfit for a session key; null when they do not. */
function refusal(name: string, args: Word[], places: Places): string | null {
  if (name === "printf" && args.some((a) => a.text.startsWith("-v"))) return "printf -v assigns to a name bash evaluates, which can run commands";
  if ((name === "test" || name === "[") && args.some((a) => a.text === "-v" || a.text === "-R")) return `${name} -v evaluates a name, which can run commands`;
  const recursive = RECURSIVE_READERS[name];
  if (recursive && (recursive.always || hasOption(args, recursive.long ?? [], recursive.short ?? ""))) {
    return `${name} reads whole directories, which may hold protected files`;
  }
  if (name === "make" && args.some((a) => ASSIGNMENT.test(a.text))) return "make NAME=value can change what the Makefile runs";
  if (!isWriter(name)) return null;
  const written = writtenPaths(name, args);
  if ("unknown" in written) return `${name} writes where only running tells (${written.unknown})`;
  const outside = [...written, ...removedPaths(name, args)].find((word) => !word.literal || !places.writable(word.text));
  return outside ? `${name} writes to ${outside.text}, which may be outside the project or protected` : null;
}

/** Whether one of the arguments is one of these options: a long name or its abbreviation, or a short letter in a cluster. */
function hasOption(args: Word[], long: readonly string[], short: string): boolean {
  for (const arg of args) {
    const text = arg.text;
    if (text === "--") return false;
    if (text.startsWith("--")) {
      const optionName = text.slice(2).split("=")[0] ?? "";
      if (optionName !== "" && long.some((l) => l.startsWith(optionName))) return true;
    } else if (text.startsWith("-") && [...text.slice(1)].some((letter) => short.includes(letter))) {
      return true;
    }
  }
  return false;
}

function cdInside(args: Word[], places: Places): Judged {
  const target = args[0];
  if (args.length !== 1 || !target?.literal || target.text.startsWith("-")) return { never: "it changes to a directory not named plainly" };
  // Read as bash reads it without CDPATH, which the tool environment leaves out.
  if (!places.cd(target.text)) return { never: `cd ${target.text} may leave the project or enter a protected directory` };
  return { key: [] };
}

/** Whether a program a runner starts can run anything (a shell, an interpreter, a wrapper). */
function runsAnything(program: string): boolean {
  const name = basename(program).toLowerCase();
  return NEVER.has(name) || INTERPRETERS.has(name) || PROGRAM_RUNNERS.has(name);
}

function looksLikeFile(text: string): boolean {
  return text.includes("/") || /\.[A-Za-z0-9]+$/.test(text);
}
