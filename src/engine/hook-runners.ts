import { readdirSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { isInside } from "../paths.ts";
import { realOrResolved } from "../store/trust.ts";

/**
 * What a task runner reads to know what to run: the files it looks for (and, for just, any name
 * of that pattern: it takes any case and a leading dot), whether it looks for them from its directory up (npm, just, …) or
 * there only (make), and the flags that name its file or its directory.
 */
type Runner = { files: readonly string[]; anyCase?: RegExp; upward: boolean; fileFlags?: readonly string[]; dirFlags?: readonly string[] };

const NPM: Runner = { files: ["package.json", ".npmrc"], upward: true, dirFlags: ["--prefix", "-C"] };
const BUN: Runner = { files: ["package.json", "bunfig.toml"], upward: true, dirFlags: ["--cwd"] };
const MAKE: Runner = { files: ["GNUmakefile", "makefile", "Makefile"], upward: false, fileFlags: ["-f", "--file", "--makefile"], dirFlags: ["-C", "--directory"] };
const TASKFILES = ["Taskfile", "taskfile", "Taskfile.dist", "taskfile.dist"].flatMap((name) => [`${name}.yml`, `${name}.yaml`]);

/**
 * The runners whose scripts or targets a hook's line may name, by the word that starts them. A
 * runner anywhere in a command (behind `sh -c`, `timeout 60`, `cross-env`, `npx`; `deno task`'s
 * task too) counts: taking too much only asks again more often. Cargo's build scripts (build.rs, its dependencies) are compiled
 * code and out of reach, as are the packages under node_modules and the test files a runner finds.
 */
const RUNNERS: Readonly<Record<string, Runner>> = {
  npm: NPM,
  npx: NPM,
  pnpm: { files: ["package.json", ".npmrc", "pnpm-workspace.yaml"], upward: true, dirFlags: ["-C", "--dir"] },
  pnpx: NPM,
  yarn: { files: ["package.json", ".yarnrc.yml", ".yarnrc"], upward: true, dirFlags: ["--cwd"] },
  bun: BUN,
  bunx: BUN,
  make: MAKE,
  gmake: MAKE,
  just: { files: ["justfile"], anyCase: /^\.?justfile$/i, upward: true, fileFlags: ["-f", "--justfile"], dirFlags: ["-d", "--working-directory"] },
  task: { files: TASKFILES, upward: true, fileFlags: ["-t", "--taskfile"], dirFlags: ["-d", "--dir"] },
  uv: { files: ["pyproject.toml", "uv.toml"], upward: true, fileFlags: ["--config-file"], dirFlags: ["--directory", "--project"] },
  poetry: { files: ["pyproject.toml", "poetry.toml"], upward: true, dirFlags: ["-C", "--directory", "-P", "--project"] },
  deno: { files: ["deno.json", "deno.jsonc", "package.json"], upward: true, fileFlags: ["-c", "--config"], dirFlags: ["--cwd"] },
};

/** The variables a hook's command may name its project by (hook-set.ts sets them). */
const PROJECT_DIR = /\$\{?(?:CLAUDE_PROJECT_DIR|LEMBAS_PROJECT_DIR)\}?/g;
/** What ends one command of a line: `&&`, `||`, `;`, a pipe, `&`, a new line, a subshell's or a substitution's bounds. */
const SEPARATORS = /&&|\|\||\$\(|[;|&\n()`]/;
/** Words that start a command without being it: `sh -c '…'`, `exec`, `env`, `timeout`, … */
const WRAPPERS: ReadonlySet<string> = new Set(["sh", "bash", "zsh", "dash", "-c", "-lc", "-ec", "-ic", "exec", "command", "builtin", "env", "time", "nice", "nohup", "sudo"]);

/**
 * The project files the runners in a hook's COMMAND read for what they run, absolute: package.json
 * for `npm test` or `bun run check`, the makefiles for `make`, the justfile, Taskfile, pyproject.toml
 * or deno.json, from the hook's working directory CWD (or where the line cds to, or a runner's
 * own directory flag) up to ROOT. Each candidate is named whether it is there or not, so that one
 * written later (a GNUmakefile before the Makefile, a package.json nearer) counts as a change.
 * Files outside the project are the person's own and are not followed.
 */
export function runnerFiles(command: string, root: string, cwd: string = root): string[] {
  const real = realOrResolved(root);
  let dir = inProject(realOrResolved(cwd), real) ?? real;
  const found: string[] = [];
  for (const words of commands(command.replace(PROJECT_DIR, real))) {
    const start = words.findIndex((w) => !WRAPPERS.has(w) && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    if (words[start] === "cd") {
      const to = words[start + 1];
      if (to !== undefined && !to.includes("$")) dir = realOrResolved(resolve(dir, to));
      continue;
    }
    words.forEach((word, i) => {
      const runner = RUNNERS[basename(word)];
      if (runner) found.push(...runnerReads(runner, words.slice(i + 1), dir, real));
    });
  }
  return [...new Set(found)];
}

/** A line's commands, each its words with the quotes (and their backslashes) taken off (`sh -c 'make check'` is sh, -c, make, check). */
function commands(line: string): string[][] {
  return line.split(SEPARATORS).map((part) =>
    part
      .split(/[\s<>]+/)
      .flatMap((w) => (w.startsWith("-") && w.includes("=") ? w.split("=", 2) : [w]))
      .map((w) => w.replace(/^[\\'"]+|[\\'"]+$/g, ""))
      .filter((w) => w !== ""),
  );
}

/** What one runner started in DIR with ARGS reads, inside the project at REAL. */
function runnerReads(runner: Runner, args: readonly string[], dir: string, real: string): string[] {
  const valueOf = (flags: readonly string[] | undefined) => args.flatMap((a, i) => (flags?.includes(a) && args[i + 1] && !args[i + 1]?.includes("$") ? [args[i + 1] as string] : []));
  const from = valueOf(runner.dirFlags).at(-1);
  const here = inProject(from === undefined ? dir : realOrResolved(resolve(dir, from)), real);
  if (here === null) return [];
  const named = valueOf(runner.fileFlags).flatMap((f) => {
    const path = isAbsolute(f) ? f : join(here, f);
    return isInside(path, real) ? [path] : [];
  });
  const dirs = runner.upward ? upTo(here, real) : [here];
  return [...named, ...dirs.flatMap((d) => candidates(runner, d))];
}

/** DIR and each directory above it up to ROOT. */
function upTo(dir: string, root: string): string[] {
  const dirs = [dir];
  let at = dir;
  while (at !== root && isInside(dirname(at), root)) {
    at = dirname(at);
    dirs.push(at);
  }
  return dirs;
}

/** The paths RUNNER looks for in DIR: its names, and those there that its pattern takes. */
function candidates(runner: Runner, dir: string): string[] {
  const names = [...runner.files];
  if (runner.anyCase) {
    const pattern = runner.anyCase;
    try {
      names.push(...readdirSync(dir).filter((name) => pattern.test(name)));
    } catch {
      // A directory not there (yet): its names are the runner's own.
    }
  }
  return [...new Set(names)].sort().map((name) => join(dir, name));
}

function inProject(path: string, real: string): string | null {
  return isInside(path, real) ? path : null;
}
