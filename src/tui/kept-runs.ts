import type { Db } from "../store/db.ts";
import { sessionShellRuns } from "../store/shell-runs.ts";
import { ShellRunBlock } from "./blocks/shell-run.ts";
import type { Theme } from "./theme.ts";
import type { OwnBlock } from "./transcript.ts";

/** A resumed session's `!` runs, drawn finished, each after the user messages that came before it. */
export function keptRuns(db: Db, sessionId: string, theme: Theme): OwnBlock[] {
  return sessionShellRuns(db, sessionId).map(({ afterUsers, run }) => {
    const block = new ShellRunBlock(run.command, theme);
    block.progress(run.output);
    block.end(run);
    return { afterUsers, block };
  });
}
