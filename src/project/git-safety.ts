/** git as the agent runs it: never asking for a password, in plain English. */
const gitEnv = () => ({ ...process.env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" });

/** git in `cwd` as the agent runs it: no input, its output piped, its errors dropped. */
export function spawnGit(cwd: string, args: readonly string[], signal?: AbortSignal) {
  return Bun.spawn(["git", ...args], { cwd, stdin: "ignore", stdout: "pipe", stderr: "ignore", env: gitEnv(), ...(signal ? { signal } : {}) });
}

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
  const child = spawnGit(root, ["config", "--local", "--includes", "--name-only", "--get-regexp", "^filter\\..*\\.(clean|process)$"], signal);
  const names = (await new Response(child.stdout).text()).split("\n").filter((name) => name !== "");
  await child.exited;
  if (names.some((name) => name.includes("="))) return null;
  return ["-c", "core.fsmonitor=false", ...names.flatMap((name) => ["-c", `${name}=`])];
}
