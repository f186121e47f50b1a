import { join } from "node:path";
import { lowerMode } from "../engine/permissions.ts";
import { errorMessage } from "../errors.ts";
import type { PromptInput, Session, TurnAnswer, TurnClaim } from "../engine/session.ts";
import { expandMentions } from "../project/attach.ts";
import { availableCommands, type CommandSet, commandsKey, loadCommands, parseCommand } from "../project/commands.ts";
import { reviewInput } from "../project/review.ts";
import { acp } from "../rpc/agent.ts";
import { type Block, BlockError, readBlocks, typedText } from "./blocks.ts";
import { type AgentHost, invalid } from "./host.ts";
import { rootsOf } from "./places.ts";

/** available_commands_update: the session's command set, after the answer that made the session. */
export function commandsUpdate(session: Session, cx: acp.AgentContext, host: AgentHost): void {
  // After the answer, never before it: a client drops updates for a session it does not know yet.
  setTimeout(() => {
    try {
      const set = loadCommands({ root: session.root, configDir: host.paths.configDir });
      sendCommands(session.id, cx, set);
      for (const notice of set.notices) session.notice(notice);
    } catch (error) {
      // A timer's throw would end the process: the session goes on without its command list.
      session.notice(`the commands could not be read: ${errorMessage(error)}`);
    }
  }, 0);
}

export function sendCommands(sessionId: string, cx: acp.AgentContext, set: CommandSet): void {
  const update = { sessionUpdate: "available_commands_update" as const, availableCommands: availableCommands(set) };
  void cx.notify("session/update", { sessionId, update }).catch(() => {});
}

/**
 * Runs one session/prompt. The turn id is looked up first: a known one gets its answer and nothing
 * else happens (no attachment written, no mode changed, no git run). A new one has its blocks read,
 * its command acted on or expanded, its @mentions attached, and is run.
 */
export async function runPrompt(session: Session, blocks: Block[], turnId: string, host: AgentHost, cx: acp.AgentContext) {
  const claimed = await session.claim(turnId);
  if ("known" in claimed) return promptResult(await claimed.known, host);
  const { claim } = claimed;
  let commands: CommandSet;
  let done: TurnAnswer;
  try {
    commands = loadCommands({ root: session.root, configDir: host.paths.configDir });
    done = await startPrompt(session, claim, blocks, commands, host);
  } catch (error) {
    // Not prepared (a block refused): the turn is forgotten. Once started, abandon does nothing.
    claim.abandon(error);
    throw error;
  }
  const after = loadCommands({ root: session.root, configDir: host.paths.configDir });
  if (commandsKey(after) !== commandsKey(commands)) {
    sendCommands(session.id, cx, after);
    for (const notice of after.notices.filter((n) => !commands.notices.includes(n))) session.notice(notice);
  }
  return promptResult(done, host);
}

/** Prepares a claimed turn (what it writes and changes happens here, once) and runs it. */
async function startPrompt(session: Session, claim: TurnClaim, blocks: Block[], commands: CommandSet, host: AgentHost): Promise<TurnAnswer> {
  const typed = typedText(blocks);
  const command = parseCommand(typed, commands);
  if (command?.type === "action") return claim.action(() => runAction(session, command.name, host), command.name);
  let review: string | null = null;
  if (command?.type === "review") {
    const input = await reviewInput(session.cwd, command.args);
    if (!input.ok) return claim.action(() => ({ message: input.message }), "review");
    review = input.text;
  }
  const input = preparedInput(session, blocks, command, review, host);
  // The command's mode is taken when the turn starts, not now: a turn that never runs changes nothing.
  const mode = command?.type === "prompt" && command.mode ? { mode: lowerMode(command.mode, host.maxMode) } : {};
  return claim.prompt({ ...input, ...mode });
}

/** The blocks' uploads written, the command expanded, the @mentions attached: the turn's input. */
function preparedInput(
  session: Session,
  blocks: Block[],
  command: ReturnType<typeof parseCommand>,
  review: string | null,
  host: AgentHost,
): Omit<PromptInput, "turnId"> {
  let read: ReturnType<typeof readBlocks>;
  try {
    read = readBlocks(blocks, join(host.paths.attachmentsDir, session.id));
  } catch (error) {
    if (error instanceof BlockError) throw invalid(error.message);
    throw error;
  }
  const mentions = expandMentions(read.typed, {
    cwd: session.cwd,
    root: session.root,
    roots: host.transport === "link" ? rootsOf(host.config.remote) : null,
    protectedPaths: host.engine.protectedPaths,
  });
  // The command's own text is never searched for @mentions; what the person typed is.
  const after = mentions.text.slice(read.typed.length);
  let text = mentions.text;
  if (review !== null) text = review + after;
  else if (command?.type === "prompt") text = command.text + after;
  if (read.added) text = `${text}\n\n${read.added}`;
  session.markRead([...mentions.read, ...read.read]);
  for (const path of [...mentions.read, ...mentions.images.map((i) => i.path)]) host.files?.recordUse(session.root, path);
  const attachments = [...read.attachments, ...mentions.images];
  return {
    text,
    ...(text !== read.typed ? { display: read.typed } : {}),
    ...(attachments.length > 0 ? { attachments } : {}),
    ...(command ? { command: command.name } : {}),
    ...(command?.type === "prompt" && command.model ? { model: command.model } : {}),
    ...(command?.type === "prompt" && command.effort ? { effort: command.effort } : {}),
  };
}

function promptResult(answer: TurnAnswer, host: AgentHost) {
  // An action that could not be done (nothing to compact yet) is the request's error, on either side.
  if (answer.error && answer.action) throw invalid(answer.error);
  // An editor is told a failed turn as an error; the web UI got the error event and the answer.
  if (answer.error && host.transport === "stdio") throw new acp.RequestError(-32603, answer.error);
  return {
    stopReason: answer.stopReason,
    _meta: {
      lembas: {
        turnId: answer.turnId,
        ...(answer.unsent ? { unsent: answer.unsent } : {}),
        ...(answer.command ? { command: answer.command } : {}),
        ...(answer.meta ?? {}),
      },
    },
  };
}

/** compact, undo and plan without a task: they act and send nothing to the model, in the turn queue. */
async function runAction(session: Session, name: "compact" | "undo" | "plan", host: AgentHost): Promise<Record<string, unknown>> {
  if (name === "compact") return { summary: (await session.compactNow()).summary };
  if (name === "undo") return { undone: session.undoNow() };
  return { mode: session.setMode(lowerMode("plan", host.maxMode)) };
}
