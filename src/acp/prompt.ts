import { join } from "node:path";
import { lowerMode } from "../engine/permissions.ts";
import { errorMessage } from "../errors.ts";
import type { Session, TurnAnswer } from "../engine/session.ts";
import { expandMentions } from "../project/attach.ts";
import { availableCommands, type CommandSet, commandsKey, loadCommands, parseCommand } from "../project/commands.ts";
import { reviewInput } from "../project/review.ts";
import { acp } from "../rpc/agent.ts";
import { type Block, BlockError, readBlocks } from "./blocks.ts";
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

/** Runs one session/prompt: blocks read, a command acted on or expanded, @mentions attached, the turn awaited. */
export async function runPrompt(session: Session, blocks: Block[], turnId: string, host: AgentHost, cx: acp.AgentContext) {
  let read: ReturnType<typeof readBlocks>;
  try {
    read = readBlocks(blocks, join(host.paths.attachmentsDir, session.id));
  } catch (error) {
    if (error instanceof BlockError) throw invalid(error.message);
    throw error;
  }
  const commands = loadCommands({ root: session.root, configDir: host.paths.configDir });
  const command = parseCommand(read.typed, commands);
  if (command?.type === "action") return runAction(session, command.name, turnId, host);
  const mentions = expandMentions(read.typed, {
    cwd: session.cwd,
    root: session.root,
    roots: host.transport === "link" ? rootsOf(host.config.remote) : null,
    protectedPaths: host.engine.protectedPaths,
  });
  let text = mentions.text;
  if (command?.type === "review") {
    const review = await reviewInput(session.cwd, command.args);
    if (!review.ok) return promptResult(await session.action(turnId, () => ({ message: review.message })), host, "review");
    text = review.text + mentions.text.slice(read.typed.length);
  } else if (command?.type === "prompt") {
    // The command's own text is never searched for @mentions; what the person typed is.
    text = command.text + mentions.text.slice(read.typed.length);
    if (command.mode) session.setMode(lowerMode(command.mode, host.maxMode));
  }
  if (read.added) text = `${text}\n\n${read.added}`;
  session.markRead([...mentions.read, ...read.read]);
  for (const path of [...mentions.read, ...mentions.images.map((i) => i.path)]) host.files?.recordUse(session.root, path);
  const attachments = [...read.attachments, ...mentions.images];
  const before = commandsKey(commands);
  const answer = await session.prompt({
    text,
    ...(text !== read.typed ? { display: read.typed } : {}),
    turnId,
    ...(attachments.length > 0 ? { attachments } : {}),
    ...(command?.type === "prompt" && command.model ? { model: command.model } : {}),
    ...(command?.type === "prompt" && command.effort ? { effort: command.effort } : {}),
  });
  const after = loadCommands({ root: session.root, configDir: host.paths.configDir });
  if (commandsKey(after) !== before) {
    sendCommands(session.id, cx, after);
    for (const notice of after.notices.filter((n) => !commands.notices.includes(n))) session.notice(notice);
  }
  return promptResult(answer, host, command?.name);
}

function promptResult(answer: TurnAnswer, host: AgentHost, command?: string) {
  // An editor is told a failed turn as an error; the web UI got the error event and the answer.
  if (answer.error && host.transport === "stdio") throw new acp.RequestError(-32603, answer.error);
  return {
    stopReason: answer.stopReason,
    _meta: {
      lembas: {
        turnId: answer.turnId,
        ...(answer.unsent ? { unsent: answer.unsent } : {}),
        ...(command ? { command } : {}),
        ...(answer.meta ?? {}),
      },
    },
  };
}

/** compact, undo and plan without a task: they act and send nothing to the model, in the turn queue. */
async function runAction(session: Session, name: "compact" | "undo" | "plan", turnId: string, host: AgentHost) {
  const answer = await session.action(turnId, async () => {
    if (name === "compact") return { summary: (await session.compactNow()).summary };
    if (name === "undo") return { undone: session.undoNow() };
    return { mode: session.setMode(lowerMode("plan", host.maxMode)) };
  });
  // An action that could not be done (nothing to compact yet) is the request's error, on either side.
  if (answer.error) throw invalid(answer.error);
  return promptResult(answer, host, name);
}
