import { setsNoFilter } from "./git-local-config.ts";

/**
 * Config that every git the model's commands run holds, whatever a repository's own config says.
 * The model can write a directory git takes for a repository of its own (HEAD, objects/, refs/
 * and a config whose core.fsmonitor is a command): git finds one by itself when it runs inside
 * it (`cd sub && git status`). With safe.bareRepository=explicit such a directory is used only
 * when named (--git-dir, GIT_DIR), and core.fsmonitor=false keeps any repository's fsmonitor
 * command from running.
 */
export const COMMAND_GIT_CONFIG: readonly (readonly [string, string])[] = [
  ["safe.bareRepository", "explicit"],
  ["core.fsmonitor", "false"],
];

/**
 * `env` with COMMAND_GIT_CONFIG given as GIT_CONFIG_COUNT entries after those it already has: git
 * reads them as command-line config, after every config file, so a repository cannot undo them.
 */
export function withCommandGitConfig(env: Record<string, string>): Record<string, string> {
  const count = Number(env.GIT_CONFIG_COUNT ?? "0");
  const start = Number.isSafeInteger(count) && count > 0 ? count : 0;
  const out: Record<string, string> = { ...env, GIT_CONFIG_COUNT: String(start + COMMAND_GIT_CONFIG.length) };
  COMMAND_GIT_CONFIG.forEach(([key, value], k) => {
    out[`GIT_CONFIG_KEY_${start + k}`] = key;
    out[`GIT_CONFIG_VALUE_${start + k}`] = value;
  });
  return out;
}

/** git as the agent runs it: never asking for a password, in plain English, with the model's commands' config. */
const gitEnv = () => withCommandGitConfig({ ...definedOnly(process.env), GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" });

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** git in `cwd` as the agent runs it: no input, its output piped, its errors dropped. */
export function spawnGit(cwd: string, args: readonly string[], signal?: AbortSignal) {
  return Bun.spawn(["git", ...args], { cwd, stdin: "ignore", stdout: "pipe", stderr: "ignore", env: gitEnv(), ...(signal ? { signal } : {}) });
}

const NO_FSMONITOR = ["-c", "core.fsmonitor=false"] as const;

/**
 * The `-c` options that keep git (status, diff) from running what the repository's own config
 * names: it runs in a directory that may be a downloaded archive with a .git of its own (git
 * status even before the person has said a word). Its core.fsmonitor is a command run at every
 * status, and a filter's clean (or process) command runs on a file whose stat changed; both are
 * turned off (the person's global ones stay, unless the repository's config sets them too).
 * Submodules are not entered (their configs are theirs). Null when a filter's name cannot be said
 * in `-c`.
 */
export async function withoutProjectPrograms(root: string, signal: AbortSignal): Promise<string[] | null> {
  const plain = withoutProjectProgramsNow(root);
  if (plain) return plain;
  const child = spawnGit(root, ["config", "--local", "--includes", "--name-only", "--get-regexp", "^filter\\..*\\.(clean|process)$"], signal);
  const names = (await new Response(child.stdout).text()).split("\n").filter((name) => name !== "");
  await child.exited;
  if (names.some((name) => name.includes("="))) return null;
  return [...NO_FSMONITOR, ...names.flatMap((name) => ["-c", `${name}=`])];
}

/**
 * {@link withoutProjectPrograms} without a process, for a repository whose config plainly sets no
 * filter (most): null when git must be asked.
 */
export function withoutProjectProgramsNow(root: string): string[] | null {
  return setsNoFilter(root) ? [...NO_FSMONITOR] : null;
}
