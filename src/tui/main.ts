import type { Context } from "../cli/context.ts";
import type { TerminalArgs } from "../cli/tui.ts";
import { TuiApp } from "./app.ts";
import { plain } from "./blocks/plain.ts";
import { catchStrayOutput } from "./stray-output.ts";
import { type Opening, TuiRuntime } from "./runtime.ts";

/**
 * Opens the interactive terminal and runs it until the person quits (or SIGTERM, SIGHUP, a SIGINT
 * from outside — Ctrl-C itself is a key here — or the end of stdin). A session that cannot be opened (an id that is not there) throws its UserError
 * before the screen starts. Returns the exit code.
 */
export async function openTerminal(ctx: Context, cwd: string, args: TerminalArgs): Promise<number> {
  const runtime = new TuiRuntime(ctx, cwd);
  const app = new TuiApp(runtime);
  const opening: Opening = args.continue ? { kind: "continue" } : typeof args.resume === "string" ? { kind: "resume", id: args.resume } : { kind: "new" };
  await runtime.open(opening, { ...(args.model ? { model: args.model } : {}), ...(args.mode ? { mode: args.mode } : {}), ...(args.effort ? { effort: args.effort } : {}) });
  void runtime.engine.warm();
  const quit = () => app.quit();
  process.on("SIGTERM", quit);
  process.on("SIGHUP", quit);
  process.on("SIGINT", quit);
  process.stdin.on("end", quit);
  app.start();
  const restore = catchStrayOutput(ctx.paths.logsDir, (line) => app.say(line, "warn"));
  if (args.resume === true) void app.resumePicker();
  if (args.prompt) app.submit(args.prompt);
  const session = await app.done;
  restore();
  process.off("SIGTERM", quit);
  process.off("SIGHUP", quit);
  process.off("SIGINT", quit);
  process.stdin.off("end", quit);
  if (session) process.stdout.write(`Session ${session.id}${session.title ? ` (${plain(session.title)})` : ""}. Resume it with: lembas -r ${session.id}\n`);
  return 0;
}
