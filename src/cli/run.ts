import { resolve } from "node:path";
import { defineCommand } from "./command.ts";
import type { Engine } from "../engine/engine.ts";
import type { Session, TurnAnswer } from "../engine/session.ts";
import { newTurnId } from "../engine/turn-queue.ts";
import { actionResult } from "../transcript/action-result.ts";
import { devicePlace, enterPrompt } from "../front/prompt.ts";
import type { Db } from "../store/db.ts";
import { listSessions } from "../store/sessions.ts";
import { EFFORTS, isOneOf, MODES } from "../config/key-values.ts";
import type { Effort, Mode } from "../config/mode-effort.ts";
import { approveAll, nobody } from "../engine/interaction.ts";
import { createEngine } from "../app/start-engine.ts";
import { errorMessage, UserError } from "../errors.ts";
import type { Block } from "../front/blocks.ts";
import { type RunResult, RunTally } from "./run-result.ts";
import { readStdin, stdinPiped } from "./stdin.ts";
import { type Interruption, interruption } from "./interrupt.ts";
import { createContext } from "../app/context.ts";
import { optionGiven } from "./args.ts";
import { isTerminal, plainOut } from "./plain-out.ts";
import { makePrinter } from "./print.ts";
import { realOr } from "../real-path.ts";
import { preconnectModel } from "./preconnect.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

export default defineCommand({
  meta: { name: "run", description: DESCRIPTIONS.run,
    examples: ['lembas run "fix the failing test"', 'lembas run --mode plan --model local/qwen2.5-coder "how is the config loaded?"', 'lembas run -c --yes "now commit it"'],
  },
  args: {
    prompt: { type: "positional", required: true, rest: true, description: "what to do" },
    model: { type: "string", valueHint: "REF", description: "model ref (lembas models lists them)" },
    mode: { type: "string", valueHint: "MODE", description: "plan | manual | edit | auto" },
    effort: { type: "string", valueHint: "EFFORT", description: "off | low | medium | high" },
    cwd: { type: "string", valueHint: "DIR", description: "the directory to work in (default: the current one)" },
    format: { type: "string", default: "text", valueHint: "FORMAT", description: "text | json (the engine's events as NDJSON, then one result line)" },
    yes: { type: "boolean", description: "approve everything the mode would ask" },
    session: { type: "string", valueHint: "ID", description: "continue this session (its id)" },
    continue: { type: "boolean", alias: "c", description: "continue the most recent session of this directory" },
    fork: { type: "boolean", description: "with --session or -c: go on in a new session forked from it (the original stays as it was)" },
  },
  refused(argv, error) {
    // The words were refused before the run began: a script asking for JSON still gets its last line.
    if (optionGiven(argv, "format") === "json") writeResult(new RunTally().result({ error: errorMessage(error), sessionId: null }));
  },
  async run({ args }) {
    const json = args.format === "json";
    const tally = new RunTally();
    // First of all: a Ctrl-C during start-up (reading stdin, reaching the model) ends the run too.
    const interrupt = interruption(() => {
      if (json) writeResult(tally.result({ cancelled: true, sessionId: null }));
      plainOut(2).write("lembas: cancelled\n");
    });
    let ran: Ran;
    try {
      ran = await runPrompt(args, interrupt, tally);
    } catch (error) {
      if (json) writeResult(tally.result({ error: errorMessage(error), sessionId: null }));
      throw error;
    } finally {
      interrupt.remove();
    }
    if (json) writeResult(tally.result(ran));
    await plainOut(1).drained();
    const { answer } = ran;
    if (answer.error) throw new UserError(answer.error, 1);
    if (answer.stopReason !== "end_turn") throw new UserError(stopSentence(answer.stopReason), answer.stopReason === "cancelled" ? 130 : 1);
    if (interrupt.stoppedEnding) throw new UserError("stopped: the session's SessionEnd hooks were cut short", 130);
  },
});

type RunArgs = { prompt: string; model?: string; mode?: string; effort?: string; cwd?: string; format: string; yes: boolean; session?: string; continue: boolean; fork?: boolean };
type Ran = { answer: TurnAnswer; sessionId: string | null };

/** Starts (or opens) the session and runs the one turn; what it answered and the session kept, if one is. */
async function runPrompt(args: RunArgs, interrupt: Interruption, tally: RunTally): Promise<Ran> {
  const mode = oneOf(MODES, args.mode, "--mode");
  const effort = oneOf(EFFORTS, args.effort, "--effort");
  if (args.format !== "text" && args.format !== "json") throw new UserError("--format must be text or json", 2);
  const blocks = await promptBlocks(args.prompt);

  const ctx = createContext();
  // A new session's model is known now: its connection is opened while the session is made.
  if (!args.session && !args.continue) preconnectModel(ctx.config().connections, args.model ?? ctx.config().model);
  const { engine, models, dropReads } = createEngine(ctx, "run");
  // As sessions are kept: where the directory really is.
  const cwd = realOr(resolve(args.cwd ?? process.cwd()));
  const existing = args.session ?? (args.continue ? latestSessionIn(ctx.db(), cwd) : undefined);
  if (args.fork && !existing) throw new UserError("--fork forks the session --session or -c names: say which", 2);
  const session = existing
    ? await continueSession(engine, args.fork ? engine.fork(existing, null, { origin: "run" }).id : existing, { ...(mode ? { mode } : {}), ...(args.model ? { model: args.model } : {}), ...(effort ? { effort } : {}) })
    : await engine.create({
        cwd,
        ...(mode ? { mode } : {}),
        ...(args.model ? { model: args.model } : {}),
        ...(effort ? { effort } : {}),
        origin: "run",
      });
  const turnId = newTurnId();
  interrupt.hold(session, turnId);
  for (const notice of models.takeNotices()) console.error(`lembas: ${notice}`);
  const json = args.format === "json";
  const stdout = plainOut(1);
  const stderr = plainOut(2);
  const printer = makePrinter(json ? "json" : "text", { stdout, stderr });
  printer.event(session.info());
  session.bus.subscribe((event) => {
    tally.see(event);
    // A Ctrl-C before the turn was running (while it was entered) stops it at its first step.
    if (event.type === "step" && interrupt.cancelled) session.cancelTurn(turnId);
    printer.event(event);
  });
  // The terminal's questions (and node:readline) are loaded only where they can be asked.
  session.interaction = printer.around(args.yes ? approveAll() : isTerminal(0) ? (await import("./ask.ts")).terminalInteraction() : nobody("not interactive: run with --yes to approve, or at a terminal"));

  let answer: TurnAnswer;
  try {
    answer = (await enterPrompt(session, blocks, turnId, devicePlace(ctx.paths, engine.protectedPaths))).answer;
  } catch (error) {
    interrupt.ended();
    if (!existing) await engine.delete(session.id);
    await engine.stop();
    dropReads();
    printer.end();
    throw error;
  }
  // What the session runs as it closes (SessionEnd hooks) a stop now cuts short: the answer is out.
  interrupt.ended();
  // A new session whose model never answered (unreachable, refusing the key, cancelled at once) is not kept.
  const kept = existing !== undefined || tally.answered || (answer.action === true && !answer.error);
  if (!kept) await engine.delete(session.id);
  await engine.stop();
  dropReads();
  printer.end();
  const action = actionResult(answer);
  if (action && !action.failed && !json && answer.command !== "compact") stderr.write(`lembas: ${action.line}\n`);
  if (kept && !json) stderr.write(`${continueLine(session.id, args.cwd)}\n`);
  await Promise.all([stdout.drained(), stderr.drained()]);
  return { answer, sessionId: kept ? session.id : null };
}

/**
 * The prompt's blocks: `-` is a prompt read from stdin; otherwise what stdin pipes in, if anything,
 * is attached to the prompt as a text resource named "stdin", as an editor attaches a file.
 */
async function promptBlocks(prompt: string): Promise<Block[]> {
  const empty = "the prompt is empty: say what to do, as in lembas run \"fix the failing test\"";
  if (prompt === "-") {
    if (isTerminal(0)) plainOut(2).write("lembas: type the prompt, then Ctrl-D on a line of its own\n");
    // echo's newline is not part of the prompt.
    const text = (await readStdin()).trimEnd();
    if (!text.trim()) throw new UserError(`${empty}, or pipe it in: echo "fix it" | lembas run -`, 2);
    return [{ type: "text", text }];
  }
  if (!prompt.trim()) throw new UserError(empty, 2);
  const blocks: Block[] = [{ type: "text", text: prompt }];
  if (!stdinPiped()) return blocks;
  const piped = await readStdin();
  if (piped.trim()) blocks.push({ type: "resource", resource: { uri: "stdin", mimeType: "text/plain", text: piped } });
  return blocks;
}

/** The last line of the text output: the session, and how to go on with it. */
function continueLine(id: string, cwd: string | undefined): string {
  const where = cwd === undefined ? "" : ` --cwd ${shellWord(cwd)}`;
  return `session ${id} · continue it: lembas run -c${where} "…" (or --session ${id})`;
}

function shellWord(word: string): string {
  return /^[\w./@:+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function writeResult(result: RunResult): void {
  plainOut(1).write(`${JSON.stringify(result)}\n`);
}

/** A flag's value among its names (--mode, --effort), or undefined when it is not given. */
function oneOf<T extends string>(names: readonly T[], value: string | undefined, flag: string): T | undefined {
  if (value === undefined) return undefined;
  if (!isOneOf(names, value)) throw new UserError(`${flag} must be one of ${names.join(", ")}`, 2);
  return value;
}

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
  if (reason === "max_turn_requests") return "the turn stopped before the model finished: it reached its step limit, or kept repeating a call that failed";
  if (reason === "max_tokens") return "the model's answer was cut at its token limit";
  if (reason === "refusal") return "the model refused";
  return `the turn ended: ${reason}`;
}
