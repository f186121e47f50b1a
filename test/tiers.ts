import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * Which test files `npm run test:fast` leaves out, and which the whole run starts first.
 *
 * The fast tier is every file that neither spawns lembas nor drives a terminal in tmux (it imports
 * none of the support modules below) and is not one of the slow files named here. The slow files
 * go first in the whole run, so that the longest ones do not start last and keep it waiting.
 */

/** Support modules whose importers spawn the program, a service or a terminal. */
export const SPAWNING_SUPPORT = ["run", "tmux", "device", "instance", "acp", "acpx"];

/** The slowest files of a whole run (over about 3 s each on a 2-core machine, measured two at a time), slowest first. */
export const SLOW = [
  "test/lsp/faults.test.ts",
  "test/lsp/typescript.test.ts",
  "test/acp/editor-files.test.ts",
  "test/cli/run-hooks.test.ts",
  "test/service/share-holder-changes.test.ts",
  "test/service/share-endings.test.ts",
  "test/service/share-web-requests.test.ts",
  "test/service/share-card-answers.test.ts",
  "test/service/service-start.test.ts",
  "test/tui/card-text.test.ts",
  "test/tui/shell-mode.test.ts",
  "test/tui/composer-input.test.ts",
  "test/tui/connection-form.test.ts",
  "test/tui/sessions-command.test.ts",
  "test/tui/command-arguments.test.ts",
  "test/service/share-moving.test.ts",
  "test/service/share-commands.test.ts",
  "test/prompts/prompts.test.ts",
  "test/service/share-cards.test.ts",
  "test/service/share.test.ts",
  "test/tui/composer.test.ts",
  "test/acp/editor-sessions.test.ts",
  "test/tui/calm-transcript.test.ts",
  "test/link/faults.test.ts",
  "test/tui/answer-text.test.ts",
  "test/tui/while-working.test.ts",
  "test/cli/prompt-words.test.ts",
  "test/cli/run-actions.test.ts",
  "test/tui/commands.test.ts",
  "test/tui/terminal.test.ts",
  "test/link/cards.test.ts",
  "test/link/terminals.test.ts",
  "test/tui/cards.test.ts",
  "test/acp/zed.test.ts",
  "test/library/account.test.ts",
  "test/engine/undo-commands.test.ts",
  "test/cli/run-show.test.ts",
  "test/service/share-deletes.test.ts",
  "test/tui/toolbox-screens.test.ts",
  "test/cli/run-flow.test.ts",
  "test/tui/transcript.test.ts",
  "test/acp/stdio.test.ts",
  "test/acp/stdio-service.test.ts",
  "test/tui/first-run.test.ts",
  "test/mcp/run-session.test.ts",
  "test/acp/hangup.test.ts",
  "test/cli/mcp.test.ts",
  "test/link/rules.test.ts",
  "test/acp/acpx.test.ts",
  "test/service/share-limits.test.ts",
  "test/link/link.test.ts",
  "test/library/cli.test.ts",
  "test/cli/jobs.test.ts",
  "test/cli/commands.test.ts",
  "test/cli/personalization.test.ts",
  "test/engine/undo-safety.test.ts",
  "test/link/login.test.ts",
  "test/service/share-ipc.test.ts",
  "test/prompts/replay.test.ts",
  "test/engine/project-files-watch.test.ts",
  "test/terminal/pty.test.ts",
  "test/cli/models.test.ts",
  "test/model/owner.test.ts",
  "test/link/log-lines.test.ts",
  "test/cli/run.test.ts",
  "test/tools/job.test.ts",
  "test/tui/service-link.test.ts",
  "test/mcp/editor-session.test.ts",
  "test/engine/server-answers.test.ts",
  "test/service/login-env.test.ts",
  "test/mcp/hub.test.ts",
  "test/tools/sandbox.test.ts",
  "test/engine/control.test.ts",
  "test/engine/project-files.test.ts",
  "test/tools/bash.test.ts",
  "test/cli/doctor-probe.test.ts",
  "test/terminal/flood.test.ts",
];

/**
 * Files that run alone, once the others have ended: a service that starts stops every process a
 * killed lembas left running on the machine (src/tools/run-mark.ts), so another file's service would
 * stop what these leave running on purpose and then look for.
 */
export const ALONE = ["test/service/leftovers.test.ts"];

/**
 * True when a test file, read as text, imports a support module that spawns something, directly or
 * through a helper of its own folder's (test/library/support.ts imports run.ts). `file` (the test's
 * path) lets such helpers be read; without it only the direct imports count.
 */
export function spawns(source: string, file?: string): boolean {
  for (const match of source.matchAll(/from "((?:\.\.?\/)+)(?:support\/)?([\w-]+)\.ts"/g)) {
    const [, up = "", name = ""] = match;
    const inSupport = match[0].includes("support/") || up === "./";
    if (inSupport && SPAWNING_SUPPORT.includes(name)) return true;
  }
  if (!file) return false;
  for (const match of source.matchAll(/from "(\.\.?\/(?:[\w-]+\/)*[\w-]+\.ts)"/g)) {
    const helper = join(dirname(file), match[1] ?? "");
    if (helper.includes("/src/") || helper.endsWith(".test.ts") || helper.includes("/support/") || !existsSync(helper)) continue;
    if (spawns(readFileSync(helper, "utf8"))) return true;
  }
  return false;
}
