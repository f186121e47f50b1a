import { resolve } from "node:path";
import { defineCommand } from "./command.ts";
import type { Engine } from "../engine/engine.ts";
import type { Session } from "../engine/session.ts";
import { newTurnId } from "../engine/turn-queue.ts";
import { actionResult } from "../front/actions.ts";
import { devicePlace, enterPrompt } from "../front/prompt.ts";
import type { Db } from "../store/db.ts";
import { listSessions } from "../store/sessions.ts";
import { Effort, Mode } from "../config/schema.ts";
import { approveAll, nobody } from "../engine/interaction.ts";
import { createEngine } from "../engine/create.ts";
import { UserError } from "../errors.ts";
import { createContext } from "./context.ts";
import { terminalInteraction } from "./ask.ts";
import { makePrinter } from "./print.ts";

export default defineCommand({
  meta: { name: "run", description: "Run one prompt to the end and print the answer",
    examples: ['lembas run "fix the failing test"', 'lembas run --mode plan --model local/qwen2.5-coder "how is the config loaded?"', 'lembas run -c --yes "now commit it"'],
  },
  args: {
    prompt: { type: "positional", required: true, rest: true, description: "what to do" },
    model: { type: "string", valueHint: "REF", description: "model ref (lembas models lists them)" },
    mode: { type: "string", valueHint: "MODE", description: "plan | manual | edit | auto" },
    effort: { type: "string", valueHint: "EFFORT", description: "off | low | medium | high" },
    cwd: { type: "string", valueHint: "DIR", description: "the directory to work in (default: the current one)" },
    format: { type: "string", default: "text", valueHint: "FORMAT", description: "text | json (the engine's events as NDJSON)" },
    yes: { type: "boolean", description: "approve everything the mode would ask" },
    session: { type: "string", valueHint: "ID", description: "continue this session (its id)" },
    continue: { type: "boolean", alias: "c", description: "continue the most recent session of this directory" },
  },
  async run({ args }) {
    const mode = args.mode === undefined ? undefined : Mode.safeParse(args.mode);
    if (mode && !mode.success) throw new UserError(`--mode must be one of ${Mode.options.join(", ")}`, 2);
    const effort = args.effort === undefined ? undefined : Effort.safeParse(args.effort);
    if (effort && !effort.success) throw new UserError(`--effort must be one of ${Effort.options.join(", ")}`, 2);
    if (args.format !== "text" && args.format !== "json") throw new UserError("--format must be text or json", 2);
    if (!args.prompt.trim()) throw new UserError("the prompt is empty: say what to do, as in lembas run \"fix the failing test\"", 2);

    const ctx = createContext();
    const { engine, models } = createEngine(ctx, "run");
    const cwd = resolve(args.cwd ?? process.cwd());
    const existing = args.session ?? (args.continue ? latestSessionIn(ctx.db(), cwd) : undefined);
    const session = existing
      ? await continueSession(engine, existing, { ...(mode?.success ? { mode: mode.data } : {}), ...(args.model ? { model: args.model } : {}), ...(effort?.success ? { effort: effort.data } : {}) })
      : await engine.create({
          cwd,
          ...(mode?.success ? { mode: mode.data } : {}),
          ...(args.model ? { model: args.model } : {}),
          ...(effort?.success ? { effort: effort.data } : {}),
          origin: "run",
        });
    for (const notice of models.takeNotices()) console.error(`lembas: ${notice}`);
    const json = args.format === "json";
    const printer = makePrinter(json ? "json" : "text");
    printer.event(session.info());
    session.bus.subscribe((event) => printer.event(event));
    session.interaction = printer.around(args.yes ? approveAll() : process.stdin.isTTY ? terminalInteraction() : nobody("not interactive: run with --yes to approve, or at a terminal"));

    const stop = () => session.cancel();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    const entered = await enterPrompt(session, [{ type: "text", text: args.prompt }], newTurnId(), devicePlace(ctx.paths, engine.protectedPaths));
    const answer = entered.answer;
    const action = actionResult(answer);
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    await engine.stop();
    printer.end();
    if (action && !action.failed && !json && answer.command !== "compact") process.stderr.write(`lembas: ${action.line}\n`);
    if (answer.error) throw new UserError(answer.error, 1);
    if (answer.stopReason !== "end_turn") throw new UserError(stopSentence(answer.stopReason), answer.stopReason === "cancelled" ? 130 : 1);
  },
});

async function continueSession(engine: Engine, id: string, change: { mode?: Mode; model?: string; effort?: Effort }): Promise<Session> {
  const session = engine.open(id);
  if (!session) throw new UserError(`there is no session ${id} (lembas sessions list shows them)`, 2);
  if (change.mode) session.setMode(change.mode);
  if (change.model || change.effort) await session.configure(change);
  return session;
}

function latestSessionIn(db: Db, cwd: string): string {
  const latest = listSessions(db, { limit: 200 }).find((s) => s.cwd === cwd);
  if (!latest) throw new UserError(`there is no session in ${cwd} to continue`, 2);
  return latest.id;
}

function stopSentence(reason: string): string {
  if (reason === "cancelled") return "cancelled";
  if (reason === "max_turn_requests") return "the turn stopped at its step limit before the model finished";
  if (reason === "max_tokens") return "the model's answer was cut at its token limit";
  if (reason === "refusal") return "the model refused";
  return `the turn ended: ${reason}`;
}
