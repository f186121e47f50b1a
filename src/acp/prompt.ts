import type { Session, TurnAnswer } from "../engine/session.ts";
import { QueueFull } from "../engine/turn-queue.ts";
import { errorMessage } from "../errors.ts";
import { type Block, BlockError } from "../front/blocks.ts";
import { commandsChanged, type Entered, enterPrompt, type PromptPlace } from "../front/prompt.ts";
import { availableCommands, type CommandSet, loadCommands } from "../project/commands.ts";
import { acp } from "../rpc/agent.ts";
import { type AgentHost, invalid } from "./host.ts";
import { rootsOf } from "./places.ts";
import { countTurnUsage, type TurnUsage } from "./turn-usage.ts";

/** available_commands_update: the session's command set, after the answer that made the session. */
export function commandsUpdate(session: Session, cx: acp.AgentContext, host: AgentHost): void {
  // After the answer, never before it: a client drops updates for a session it does not know yet.
  setTimeout(() => {
    try {
      const set = loadCommands({ root: session.root, configDir: host.paths.configDir, protectedPaths: host.engine.protectedPaths });
      sendCommands(session.id, cx, set);
      for (const notice of set.notices) session.noticeOnce(notice);
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

/** Where this connection's prompts come from, for the one way into a session (src/front/prompt.ts). */
export function promptPlace(host: AgentHost, session: Session): PromptPlace {
  return {
    attachmentsDir: host.paths.attachmentsDir,
    configDir: host.paths.configDir,
    roots: host.transport === "link" ? (host.promptRoots?.(session) ?? rootsOf(host.config.remote)) : null,
    protectedPaths: host.engine.protectedPaths,
    maxMode: host.maxMode,
    // An editor splits a sentence around each @-mention: joined as it wrote them, mentions in place.
    joining: host.transport === "stdio" ? "in-place" : "paragraphs",
    ...(host.files ? { recordUse: (root: string, path: string) => host.files?.recordUse(root, path) } : {}),
  };
}

/**
 * The most bytes of prompts one session holds, from their arrival to their answer, while a turn
 * runs: each prompt may be 25 MB, and those waiting behind a turn stay in memory until they run.
 */
export const MAX_WAITING_BYTES = 64 * 1024 * 1024;
const held = new WeakMap<Session, number>();

/** Runs one session/prompt through the one way into a session; a block it cannot read, or one prompt too many waiting, is -32602. */
export async function runPrompt(session: Session, blocks: Block[], turnId: string, host: AgentHost, cx: acp.AgentContext) {
  let entered: Entered;
  let tokens: TurnUsage | null = null;
  const bytes = sizeOf(blocks);
  const before = held.get(session) ?? 0;
  if (session.busy && before + bytes > MAX_WAITING_BYTES) throw invalid(new QueueFull(`${MAX_WAITING_BYTES / 1024 / 1024} MB of prompts`).message);
  held.set(session, before + bytes);
  // An editor is told the turn's tokens in the answer (the schema's unstable `usage`); the link's answer stays as the spec shows it.
  const usage = host.transport === "stdio" ? countTurnUsage(session, turnId) : null;
  try {
    entered = await enterPrompt(session, blocks, turnId, promptPlace(host, session));
  } catch (error) {
    if (error instanceof BlockError || error instanceof QueueFull) throw invalid(error.message);
    throw error;
  } finally {
    tokens = usage?.stop() ?? null;
    held.set(session, (held.get(session) ?? bytes) - bytes);
  }
  // The command files skipped were said by enterPrompt, once a session.
  if (!entered.known && commandsChanged(entered)) sendCommands(session.id, cx, entered.after);
  const result = promptResult(entered.answer, host);
  return tokens && !entered.known ? { ...result, usage: tokens } : result;
}

function promptResult(answer: TurnAnswer, host: AgentHost) {
  // Never run: saying "cancelled" would tell the client it was dealt with. Sent again, it runs once.
  // The data says it to the service's router, which sends it on to wherever the session went.
  if (answer.unstarted) throw new acp.RequestError(-32603, "the session was let go of before this turn started (its process quit or stopped): send it again with the same turnId", { lembas: { unstarted: true, turnId: answer.turnId } });
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

/** What a prompt's blocks hold, in characters of their strings (its text, its resources' data). */
function sizeOf(value: unknown): number {
  if (typeof value === "string") return value.length;
  if (Array.isArray(value)) return value.reduce((n: number, v: unknown) => n + sizeOf(v), 0);
  if (typeof value === "object" && value !== null) return Object.values(value).reduce((n: number, v: unknown) => n + sizeOf(v), 0);
  return 0;
}
