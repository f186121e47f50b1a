import type { Word } from "./command-line.ts";
import { listedOptions } from "./command-option-lists.ts";
import { optionList, scanOptions } from "./command-options.ts";

/**
 * git subcommands that print what tracked files hold: a tracked `.env` is in every `git show`,
 * `git grep`, `git archive`. What they may show is judged by what the repository tracks.
 *
 * `changes`: a work tree's diff against the index (`git diff`, `git diff -- src`): only a tracked
 * file changed on disk shows. `history`: any tracked file's content may show.
 */
export type GitRead = { scope: "changes"; paths: Word[] } | { scope: "history" };

const SHOWS_ANY = new Set(["grep", "archive", "format-patch", "cat-file", "blame", "annotate", "fast-export", "bundle", "range-diff", "request-pull"]);

/** Options of log, show and whatchanged that print a patch. */
const PATCH = /^(-p|-u|--patch.*|-L.*|-S.*|-G.*|--cc|-c|--dd|--word-diff.*|--color-words.*|-U.*|--unified.*|-W|--function-context|--full-diff|--binary|--remerge-diff)$/;
/** Options of show that keep its patch out. */
const NO_PATCH = /^(-s|--no-patch|--stat.*|--name-only|--name-status|--numstat|--shortstat|--summary|--raw)$/;

/** What `git SUB ARGS` may show of tracked files; null when it shows none of their content. */
export function gitReads(sub: string, args: readonly Word[]): GitRead | null {
  const texts = args.map((a) => a.text);
  if (SHOWS_ANY.has(sub)) return { scope: "history" };
  if (sub === "log" || sub === "whatchanged" || sub === "reflog") return texts.some((t) => PATCH.test(t)) ? { scope: "history" } : null;
  if (sub === "show") return texts.some((t) => PATCH.test(t)) || !texts.some((t) => NO_PATCH.test(t)) ? { scope: "history" } : null;
  if (sub === "stash") return texts.includes("show") ? { scope: "history" } : null;
  if (sub !== "diff") return null;
  if (texts.some((t) => /^--(cached|staged|merge-base|no-index)$/.test(t))) return { scope: "history" };
  const dashes = texts.indexOf("--");
  // Before `--`, an operand may be a revision (HEAD, main): then any tracked file may show.
  const before = (dashes === -1 ? args : args.slice(0, dashes)).filter((a) => !a.text.startsWith("-"));
  const after = dashes === -1 ? [] : args.slice(dashes + 1);
  return { scope: "changes", paths: [...before, ...after] };
}

/** Options of git's that write where their value says, beyond its subcommands' own lists. */
const OUTPUT = optionList("--output=w --output-directory=w");

/** The paths `git SUB ARGS` writes to outside its repository's own files: a clone's, a worktree's, an output file. */
export function gitWrites(sub: string, args: readonly Word[]): Word[] {
  const listed = listedOptions("git", sub)?.options;
  const scanned = scanOptions(args, listed ?? OUTPUT);
  const output = scanOptions(args, OUTPUT).writes;
  const operands = scanned.operands;
  const written = [...new Set([...scanned.writes, ...output])];
  if (sub === "clone" && operands.length >= 2) written.push(operands.at(-1) as Word);
  if ((sub === "worktree" && operands[0]?.text === "add") || (sub === "bundle" && operands[0]?.text === "create")) {
    if (operands[1]) written.push(operands[1]);
  }
  return written;
}

/** git's own options before its subcommand, and where they move it: `-C dir`, `--git-dir`, `--work-tree`. */
export type GitLine = { sub: Word | null; args: Word[]; directories: Word[]; elsewhere: boolean };

export function readGitLine(args: readonly Word[]): GitLine {
  const directories: Word[] = [];
  let elsewhere = false;
  for (let i = 0; i < args.length; i++) {
    const text = args[i]?.text ?? "";
    if (text === "-C" || text === "-c" || text === "--exec-path" || text === "--namespace") {
      if (text === "-C" && args[i + 1]) directories.push(args[i + 1] as Word);
      i++;
      continue;
    }
    if (/^--(git-dir|work-tree)/.test(text)) elsewhere = true;
    if (text.startsWith("-")) continue;
    return { sub: args[i] as Word, args: args.slice(i + 1), directories, elsewhere };
  }
  return { sub: null, args: [], directories, elsewhere };
}
