import type { Word } from "./command-line.ts";
import { readTar, sourcePaths } from "./command-writes.ts";
import { literalWord } from "./command-words.ts";

/**
 * Programs that read every file of a directory tree (`grep -r`, `tar c`, `cp -r`): what they are
 * given is judged by what the tree holds, a protected file read with the rest.
 */

/**
 * The trees a command reads whole, as words naming them; `here`: with none of them there, the
 * directory it runs in; `hidden`: whether it reads hidden files too. Null when it reads no tree.
 */
export type TreesRead = { trees: Word[]; here: boolean; hidden: boolean };

const GREPS = new Set(["grep", "egrep", "fgrep"]);

export function treesRead(name: string, args: readonly Word[]): TreesRead | null {
  const texts = args.map((a) => a.text);
  const operands = args.filter((a) => !a.text.startsWith("-"));
  if (GREPS.has(name) || name === "rgrep") {
    const recursive = name === "rgrep" || hasOption(texts, "rR", ["recursive", "dereference-recursive"]) || directoriesRecurse(texts);
    return recursive ? { trees: operands, here: true, hidden: true } : null;
  }
  if (name === "rg") return { trees: operands, here: true, hidden: rgHidden(texts) };
  if (name === "ag") return { trees: operands, here: true, hidden: hasOption(texts, "u", ["hidden", "unrestricted"]) };
  if (name === "ack") return { trees: operands, here: true, hidden: true };
  if (name === "find") return findTrees(args);
  if (name === "tar") return tarTrees(args);
  if (name === "diff" && hasOption(texts, "r", ["recursive"])) return { trees: operands, here: false, hidden: true };
  const recursiveCopy = (name === "cp" && hasOption(texts, "rRa", ["recursive", "archive"])) || name === "rsync" || (name === "scp" && hasOption(texts, "r", []));
  if (recursiveCopy) return { trees: sourcePaths(name, args), here: false, hidden: true };
  if (name === "zip" && hasOption(texts, "rR", ["recurse-paths", "recurse-patterns"])) return { trees: sourcePaths(name, args), here: false, hidden: true };
  return null;
}

/** Whether a short letter (in a cluster) or a long name is among the arguments, before any `--`. */
export function hasOption(texts: readonly string[], letters: string, names: readonly string[]): boolean {
  for (const text of texts) {
    if (text === "--") return false;
    if (text.startsWith("--")) {
      if (names.includes(text.slice(2).split("=")[0] ?? "")) return true;
    } else if (text.startsWith("-") && [...text.slice(1)].some((l) => letters.includes(l))) {
      return true;
    }
  }
  return false;
}

function directoriesRecurse(texts: readonly string[]): boolean {
  return texts.some((t, k) => t === "--directories=recurse" || (t === "-d" && texts[k + 1] === "recurse") || t === "-drecurse");
}

/** rg skips hidden files unless --hidden, -. or -uu (twice unrestricted) says otherwise. */
function rgHidden(texts: readonly string[]): boolean {
  let unrestricted = 0;
  for (const text of texts) {
    if (text === "--") break;
    if (text === "--hidden" || text === "-." || text === "--unrestricted") unrestricted += text === "--unrestricted" ? 1 : 2;
    else if (/^-[a-zA-Z.]+$/.test(text)) unrestricted += [...text].filter((c) => c === "u").length + (text.includes(".") ? 2 : 0);
  }
  return unrestricted >= 2;
}

/** find reads what it finds only when it runs a program on it (-exec cat {}): its starting points, or `.`. */
function findTrees(args: readonly Word[]): TreesRead | null {
  if (!args.some((a) => /^-(exec|execdir|ok|okdir)$/.test(a.text))) return null;
  const starts: Word[] = [];
  for (const arg of args) {
    if (/^-[HLP]$/.test(arg.text) || /^-(D|O)/.test(arg.text)) continue;
    if (arg.text.startsWith("-") || arg.text === "(" || arg.text === "!") break;
    starts.push(arg);
  }
  return { trees: starts.length > 0 ? starts : [literalWord(".")], here: false, hidden: true };
}

/** tar reads the members it archives (c, r, u), each from the directory -C names. */
function tarTrees(args: readonly Word[]): TreesRead | null {
  const line = readTar(args);
  if (!line.creates) return null;
  const base = line.directory;
  const trees = line.operands.map((member) => (base && !member.text.startsWith("/") ? joined(base, member) : member));
  return { trees, here: false, hidden: true };
}

function joined(base: Word, member: Word): Word {
  const text = `${base.text.replace(/\/+$/, "")}/${member.text}`;
  return base.literal && member.literal ? literalWord(text) : { text, literal: false, parts: [{ kind: "text", text, quoted: false }] };
}
