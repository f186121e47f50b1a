import type { Word } from "./command-line.ts";

/**
 * Reading a program's options against a list of the ones it may take. A list is written as its
 * options separated by spaces: `-a` a flag, `-n=` an option with a value (attached, or the next
 * word), `-C?=` a value only when attached (`-C50%`, `--color=always`), `-o=w` a value that is a
 * path the program writes to, `--all`, `--format=`, and `-<number>` for a number (`-5`). A short option
 * may be given in a cluster (`-la`), as getopt reads it; a short name of several letters (wget's `-nv`) only whole.
 */

type Arity = "flag" | "value" | "attached" | "writes";

export type OptionList = { short: ReadonlyMap<string, Arity>; long: ReadonlyMap<string, Arity>; numeric: boolean };

export function optionList(text: string): OptionList {
  const short = new Map<string, Arity>();
  const long = new Map<string, Arity>();
  let numeric = false;
  for (const spec of text.split(/\s+/).filter((s) => s !== "")) {
    if (spec === "-<number>") {
      numeric = true;
      continue;
    }
    const match = /^(--?)([^=?]+)(\?=|=w|=)?$/.exec(spec);
    if (!match) throw new Error(`bad option spec ${spec}`);
    const [, dashes, name = "", suffix] = match;
    const arity: Arity = suffix === "=" ? "value" : suffix === "=w" ? "writes" : suffix === "?=" ? "attached" : "flag";
    (dashes === "--" ? long : short).set(name, arity);
  }
  return { short, long, numeric };
}

/** Lists joined: `optionList` of each text, in one. */
export function optionLists(...texts: string[]): OptionList {
  return optionList(texts.join(" "));
}

/** What a scan of a command's arguments found: options outside the list, and the paths options write to. */
export type Scanned = { unlisted: Word[]; writes: Word[]; operands: Word[] };

/**
 * Reads `args` as the program would: `--` ends the options, a lone `-` is an operand. With
 * `untilOperand`, the first operand ends them too (what follows is for the program it runs).
 */
export function scanOptions(args: readonly Word[], list: OptionList, untilOperand = false): Scanned {
  const scanned: Scanned = { unlisted: [], writes: [], operands: [] };
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as Word;
    const text = arg.text;
    if (!options || text === "-" || !text.startsWith("-")) {
      scanned.operands.push(arg);
      if (untilOperand) options = false;
      continue;
    }
    if (text === "--") {
      options = false;
      continue;
    }
    const next = args[i + 1];
    const taken = text.startsWith("--") ? readLong(text, arg, next, list, scanned) : readShort(text, arg, next, list, scanned);
    if (taken) i++;
  }
  return scanned;
}

/** One `--name` or `--name=value`; true when it took the next word as its value. */
function readLong(text: string, arg: Word, next: Word | undefined, list: OptionList, scanned: Scanned): boolean {
  const at = text.indexOf("=");
  const name = text.slice(2, at === -1 ? undefined : at);
  const arity = list.long.get(name);
  if (arity === undefined || (arity === "flag" && at !== -1)) {
    scanned.unlisted.push(arg);
    return false;
  }
  if (arity === "flag" || arity === "attached") return false;
  if (at !== -1) {
    if (arity === "writes") scanned.writes.push(valueWord(arg, text.slice(at + 1)));
    return false;
  }
  if (next && arity === "writes") scanned.writes.push(next);
  return next !== undefined;
}

/** A cluster of short options (`-la`, `-n5`, `-o out`); true when it took the next word as a value. */
function readShort(text: string, arg: Word, next: Word | undefined, list: OptionList, scanned: Scanned): boolean {
  if (list.numeric && /^-[0-9]+$/.test(text)) return false;
  if (text.length > 2 && list.short.get(text.slice(1)) === "flag") return false;
  for (let k = 1; k < text.length; k++) {
    const arity = list.short.get(text[k] ?? "");
    if (arity === undefined) {
      scanned.unlisted.push(arg);
      return false;
    }
    if (arity === "flag") continue;
    const rest = text.slice(k + 1);
    if (arity === "attached" || rest !== "") {
      if (arity === "writes" && rest !== "") scanned.writes.push(valueWord(arg, rest));
      return false;
    }
    if (next && arity === "writes") scanned.writes.push(next);
    return next !== undefined;
  }
  return false;
}

/** The value part of an option word, known or not as the word is. */
function valueWord(arg: Word, text: string): Word {
  return { text, literal: arg.literal, parts: [{ kind: "text", text, quoted: true }] };
}
