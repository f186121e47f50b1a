import type { Context } from "../app/context.ts";
import type { TerminalArgs } from "../app/terminal-args.ts";
import type { Session } from "../engine/session.ts";
import { TuiApp } from "./app.ts";
import { firstRun } from "./first-run.ts";
import { findNoModel } from "./no-model.ts";
import { plain } from "./blocks/plain.ts";
import { counted } from "../plural.ts";
import type { FirstFrame } from "./first-frame.ts";
import type { Opening } from "./opening.ts";
import { catchStrayOutput } from "./stray-output.ts";
import { type SessionChoice, TuiRuntime } from "./runtime.ts";

/**
 * Opens the interactive terminal on its first frame (drawn, with `opening` checked, by
 * cli/tui.ts) and runs it until the person quits (or SIGTERM, SIGHUP, a SIGINT from outside —
 * Ctrl-C itself is a key here — or the end of stdin). With no model to talk to, the first-run
 * screen comes first (first-run.ts). Returns the exit code.
 */
export async function openTerminal(ctx: Context, cwd: string, args: TerminalArgs, opening: Opening, frame: FirstFrame): Promise<number> {
  const runtime = new TuiRuntime(ctx, cwd);
  runtime.shareAtStart = args.share;
  const choice = { ...(args.model ? { model: args.model } : {}), ...(args.mode ? { mode: args.mode } : {}), ...(args.effort ? { effort: args.effort } : {}) };
  // The app takes over the first frame; the engine is made and the session opened right after it.
  const app = new TuiApp(runtime, frame);
  // An opening the screen says it waits on (a session the web's turn holds at the service) reads
  // the keys at once: the person may quit rather than wait.
  runtime.listen((change) => {
    if (change.type === "note" && !runtime.hasSession) frame.releaseKeys();
  });
  const quit = () => app.quit();
  // A Ctrl-C typed while Ctrl+G's editor has the terminal reaches the whole foreground group: it is
  // the editor's (as git leaves it to `git commit`'s), and the draft stays.
  const interrupted = () => {
    if (!app.terminalGivenAway) quit();
  };
  process.on("SIGTERM", quit);
  process.on("SIGHUP", quit);
  process.on("SIGINT", interrupted);
  process.stdin.on("end", quit);
  app.start();
  const restore = catchStrayOutput(ctx.paths.logsDir, (line) => app.say(line, "warn"));
  let session: Session | null = null;
  try {
    const noModel = await findNoModel(runtime);
    if (noModel) {
      // The first-run screen reads the keys typed since the first frame.
      frame.releaseKeys();
      const ready = await Promise.race([firstRun(app, noModel), app.done.then(() => false)]);
      if (!ready) {
        app.quit();
        await app.done;
        return 0;
      }
    }
    await openOrEnd(app, opening, choice);
    // The keys typed since the first frame are read once the session is as a key expects it: its
    // prompt history loaded (Up, Ctrl+R), its link to the service tried (/share).
    void runtime.linked().then(() => frame.releaseKeys());
    void runtime.engine.warm();
    if (args.resume === true) void app.resumePicker();
    if (args.prompt) app.submit(args.prompt);
    session = await app.done;
  } finally {
    restore();
    process.off("SIGTERM", quit);
    process.off("SIGHUP", quit);
    process.off("SIGINT", interrupted);
    process.stdin.off("end", quit);
  }
  for (const line of notSentLines(app.sender.notSent)) writeQuietly(`${line}\n`);
  if (session) writeQuietly(`Session ${session.id}${session.title ? ` (${plain(session.title)})` : ""}. Resume it with: lembas -r ${session.id}\n`);
  return 0;
}

/** Opens the session under the screen already drawn; one that cannot be opened ends the screen with its error. */
async function openOrEnd(app: TuiApp, opening: Opening, choice: SessionChoice): Promise<void> {
  try {
    await app.runtime.open(opening, choice);
  } catch (error) {
    app.quit();
    await app.done;
    throw error;
  }
}

/** What the person entered that the quit left unsent, said on the way out: where it is kept, or the text itself. */
function notSentLines(notSent: readonly { text: string; kept: boolean }[]): string[] {
  const kept = notSent.filter((m) => m.kept).length;
  const lost = notSent.filter((m) => !m.kept).map((m) => `not sent, and it could not be kept: ${plain(m.text)}`);
  return [...(kept > 0 ? [`${counted(kept, "message")} ${kept === 1 ? "was" : "were"} not sent: ↑ brings ${kept === 1 ? "it" : "them"} back`] : []), ...lost];
}

/** The last line, to a terminal that may be gone (a hang-up): then it is simply not said. */
function writeQuietly(text: string): void {
  try {
    process.stdout.write(text);
  } catch {
    // nobody to tell
  }
}
