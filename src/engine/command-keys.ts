import { basename, resolve } from "node:path";
import { isInside } from "../paths.ts";
import { parseCommandLine, type Redirect, type SimpleCommand } from "./command-line.ts";

/**
 * What "always allow" means for a command line: one key per simple command it runs (`git status`,
 * `npm test`, `ls`), or the reason it can never be allowed for a session.
 */
export type CommandKeys = { keys: string[] } | { never: string };

/** Where a line runs, and how to judge the paths it writes to. */
export type CommandPlace = {
  cwd: string;
  root: string;
  /** Whether an absolute path is protected (the project's protected paths). */
  isProtected(path: string): boolean;
  /** Where a path really leads (symlinks followed); the path itself when unknown. */
  realPath(path: string): string;
};

/** Programs whose first argument says what they do: "always" is kept per subcommand. */
const SUBCOMMANDS = new Set([
  "git", "npm", "pnpm", "yarn", "bun", "deno", "npx", "bunx", "pnpx", "cargo", "go", "rustup", "make", "just",
  "docker", "podman", "kubectl", "helm", "terraform", "gh", "pip", "pip3", "uv", "poetry", "dotnet", "mvn",
  "gradle", "./gradlew", "mix", "swift", "composer", "bundle", "brew", "apt", "apt-get", "systemctl",
  // An interpreter's "subcommand" is its script: `node build.js`, never `node -e …`.
  "node", "python", "python3", "ruby", "perl", "php",
]);

/** Subcommands that run something named by the next word (`npm run build`): that word is kept too. */
const RUNNERS: Record<string, ReadonlySet<string>> = {
  npm: new Set(["run", "run-script", "exec", "x"]),
  pnpm: new Set(["run", "exec", "dlx"]),
  yarn: new Set(["run", "exec", "dlx"]),
  bun: new Set(["run", "x"]),
  uv: new Set(["run", "tool"]),
  poetry: new Set(["run"]),
  bundle: new Set(["exec"]),
  python: new Set(["-m"]),
  python3: new Set(["-m"]),
};

/** Options before a subcommand that change nothing about what runs; left out of the key. */
const HARMLESS_OPTIONS: Record<string, ReadonlySet<string>> = {
  git: new Set(["--no-pager", "-P", "--no-optional-locks"]),
};

/**
 * Never allowed for a session: programs that run other commands (sudo, env, xargs…), shells,
 * builtins that change the shell's state for what follows (export, set, alias…), rm, and the
 * shell's own keywords (a line with `if` or `for` is judged each time).
 */
const NEVER = new Set([
  "sudo", "doas", "su", "env", "xargs", "parallel", "exec", "nohup", "eval", "source", ".", "command", "builtin",
  "time", "timeout", "nice", "ionice", "stdbuf", "watch", "strace", "ltrace", "chroot", "setsid", "unbuffer",
  "script", "sh", "bash", "zsh", "fish", "dash", "ksh", "csh", "tcsh", "rm", "export", "declare", "typeset",
  "local", "readonly", "unset", "set", "shopt", "alias", "unalias", "enable", "hash", "trap", "pushd", "popd",
  "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for", "in", "select",
  "function", "coproc", "{", "}", "[[", "]]", "!",
]);

/** find's actions that run a command, delete, or write files. */
const FIND_ACTIONS = /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/;

/** Files a redirection may write to anywhere. */
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);
const WRITES = new Set<Redirect["op"]>([">", ">>", ">|", "&>", "&>>", "<>"]);

/**
 * The keys of a command line. Every simple command must be one that can be allowed; `cd` into a
 * directory inside the project is harmless and needs no key. Redirections must write inside the
 * project, judged from every directory the line may be in when they happen.
 */
export function commandKeys(line: string, place: CommandPlace): CommandKeys {
  const parsed = parseCommandLine(line);
  if (parsed.kind === "substitutes") return { never: "it runs commands it builds itself ($(…), backticks, <(…))" };
  if (parsed.kind === "unreadable") return { never: `it cannot be read for certain (${parsed.why})` };
  if (parsed.grouped) return { never: "it runs commands in a subshell" };
  // A cd may fail, or run in a pipeline's subshell: every directory seen so far stays possible.
  const cwds = [place.cwd];
  const keys: string[] = [];
  for (const command of parsed.commands) {
    const written = command.redirects.find((r) => !writesInside(r, cwds, place));
    if (written) return { never: `it writes to ${written.target.text}, which may be outside the project` };
    const judged = judge(command, cwds, place);
    if ("never" in judged) return judged;
    if (judged.key.length === 0) continue;
    // A key is words joined by spaces: a word holding one ('git status') would pass for two.
    if (judged.key.some((word) => word === "" || /[\s\x00-\x1f\x7f]/.test(word))) return { never: "its program or subcommand is empty or holds spaces" };
    const key = judged.key.join(" ");
    if (!keys.includes(key)) keys.push(key);
  }
  return { keys };
}

/** One simple command's key, as words; none for a harmless cd (which adds the directories it may lead to). */
function judge(command: SimpleCommand, cwds: string[], place: CommandPlace): { key: string[] } | { never: string } {
  if (command.assignments.length > 0) return { never: "it sets variables for the commands it runs" };
  const [program, ...args] = command.words;
  if (!program) return { key: [] };
  if (!program.literal) return { never: `its program (${program.text}) is only known when it runs` };
  // Judged by name wherever it lives (/usr/bin/env is env); keyed as written.
  const name = basename(program.text);
  if (program.text === "cd") return cdInside(args, cwds, place);
  if (NEVER.has(name)) return { never: `${name} is never allowed for a session` };
  if (name === "find" && args.some((a) => FIND_ACTIONS.test(a.text))) return { never: "find runs, deletes or writes here" };
  if (!SUBCOMMANDS.has(name) && !SUBCOMMANDS.has(program.text)) return { key: [program.text] };
  const harmless = HARMLESS_OPTIONS[name];
  let rest = args;
  while (rest[0] && harmless?.has(rest[0].text)) rest = rest.slice(1);
  const [sub, next] = rest;
  if (!sub) return { key: [program.text] };
  const runner = RUNNERS[name]?.has(sub.text) ?? false;
  if (!sub.literal || (sub.text.startsWith("-") && !runner)) return { never: `options before ${name}'s subcommand can change what it runs` };
  if (!runner || !next) return { key: [program.text, sub.text] };
  if (!next.literal || next.text.startsWith("-")) return { never: `what ${name} ${sub.text} runs is not named plainly` };
  return { key: [program.text, sub.text, next.text] };
}

function cdInside(args: SimpleCommand["words"], cwds: string[], place: CommandPlace): { key: [] } | { never: string } {
  const target = args[0];
  if (args.length !== 1 || !target?.literal || target.text.startsWith("-")) return { never: "it changes to a directory not named plainly" };
  // Read as bash reads it without CDPATH (which a person exports rarely, and scripts break under).
  const reached = cwds.map((cwd) => resolve(cwd, target.text));
  if (reached.some((dir) => !insideProject(dir, place))) return { never: `cd ${target.text} may leave the project` };
  cwds.push(...reached);
  return { key: [] };
}

function writesInside(redirect: Redirect, cwds: string[], place: CommandPlace): boolean {
  const target = redirect.target;
  if (redirect.op === ">&" || redirect.op === "<&") {
    if (/^([0-9]+|-)$/.test(target.text)) return true;
    if (redirect.op === "<&") return false;
  } else if (!WRITES.has(redirect.op)) {
    return true;
  }
  if (!target.literal) return false;
  if (HARMLESS_TARGETS.has(target.text)) return true;
  return cwds.every((cwd) => {
    const path = resolve(cwd, target.text);
    return insideProject(path, place) && !place.isProtected(path) && !place.isProtected(place.realPath(path));
  });
}

function insideProject(path: string, place: CommandPlace): boolean {
  return isInside(path, place.root) && isInside(place.realPath(path), place.realPath(place.root));
}
