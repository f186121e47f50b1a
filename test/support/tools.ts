/**
 * The outside tools some tests need (tmux, bubblewrap, zsh, fish, ripgrep, shellcheck…). On a
 * developer's machine a missing one skips its tests with a warning; in CI (`CI` set), where
 * `.ci/run` installs them, a missing one fails the test file with a sentence saying what to install,
 * so that no test is skipped there unseen.
 *
 * ```ts
 * const rg = tool("rg", "ripgrep", "the ripgrep half of the search tests");
 * test.skipIf(!rg)("…", …);
 * ```
 */
import { findSandbox } from "../../src/tools/sandbox.ts";

const inCI = (process.env.CI ?? "") !== "" && process.env.CI !== "false";

/** Says a tool is missing: a warning here, an error (failing the file that asked) in CI. */
export function missing(what: string, needs: string): void {
  if (inCI) throw new Error(`${needs} needs ${what}, which is missing here; CI must install it (.ci/run) rather than skip these tests.`);
  console.warn(`SKIPPED: ${needs} needs ${what}, which is not installed here (CI installs it).`);
}

/** The path of `command`, or null after saying it is missing (`pkg` is the package to install). */
export function tool(command: string, pkg: string, needs: string): string | null {
  const path = Bun.which(command);
  if (path === null) missing(`${command} (the ${pkg} package)`, needs);
  return path;
}

/** True when the tools' sandbox is bubblewrap here; otherwise says why it is not. */
export function bwrapSandbox(needs: string): boolean {
  const found = findSandbox();
  if (found.kind === "bwrap") return true;
  missing(`the bubblewrap sandbox (here ${found.kind === "none" ? found.why : `the sandbox is ${found.kind}`})`, needs);
  return false;
}
