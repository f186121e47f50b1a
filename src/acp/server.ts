import { existsSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import type { EngineEvent } from "../bus/index.ts";
import type { Paths } from "../config/paths.ts";
import { type Config, Effort, Mode } from "../config/schema.ts";
import type { Engine } from "../engine/engine.ts";
import { lowerMode } from "../engine/permissions.ts";
import type { Session, TurnAnswer } from "../engine/session.ts";
import { errorMessage, UserError } from "../errors.ts";
import { BUILTIN_COMMANDS, parseCommand } from "../project/commands.ts";
import { acp, connectAgent } from "../rpc/agent.ts";
import type { Stream } from "../rpc/stream.ts";
import { initializeResult, type Limits, type Transport } from "./agent.ts";
import { type Block, BlockError, readBlocks } from "./blocks.ts";
import { type ClientInfo, detectClient } from "./client.ts";
import { modeState } from "./modes.ts";
import { acpInteraction } from "./permission.ts";
import { toUpdates } from "./updates.ts";

/** What serving ACP needs from its surroundings (the service or `serve --stdio`). */
export type AgentHost = {
  engine: Engine;
  config: Config;
  paths: Paths;
  transport: Transport;
  /** The link protocol said to this peer (1 or 2); on stdio, ours. */
  protocol: number;
  limits: Limits | null;
  /** The login's connection name on a link; null on stdio. */
  connection: string | null;
  /** The highest mode a session made here may have. */
  maxMode: Mode;
};

const NewSessionMeta = z
  .looseObject({
    mode: Mode.optional(),
    model: z.string().min(1).optional(),
    lembas_model: z.string().min(1).optional(),
    effort: Effort.optional(),
  })
  .nullish();

const PromptMeta = z.looseObject({ lembas: z.looseObject({ turnId: z.string().min(1).max(200).optional() }).optional() }).nullish();

const invalid = (sentence: string) => new acp.RequestError(-32602, `Invalid params: ${sentence}`);

/**
 * Serves the Agent Client Protocol on one connection: initialize, session/new, session/prompt,
 * session/set_mode, session/cancel, and session/update notifications from each session's bus.
 */
export function serveAcp(stream: Stream, host: AgentHost): { connection: acp.AgentConnection; close(): Promise<void> } {
  let client: ClientInfo = { lembas: false, protocol: 0 };
  const attached = new Map<string, { session: Session; detach: () => void }>();

  const sessionOf = (sessionId: string): Session => {
    const entry = attached.get(sessionId);
    if (!entry) throw invalid(`there is no session ${sessionId} on this connection`);
    return entry.session;
  };

  const attach = (session: Session, cx: acp.AgentContext) => {
    const forward = (event: EngineEvent) => {
      for (const update of toUpdates(event, session)) {
        void cx.notify("session/update", { sessionId: session.id, update } as acp.SessionNotification).catch(() => {});
      }
      if (client.lembas) void cx.notify("_lembas/event", { sessionId: session.id, event }).catch(() => {});
    };
    const unsubscribe = session.bus.subscribe(forward);
    session.interaction = acpInteraction(cx);
    attached.set(session.id, {
      session,
      detach: () => {
        unsubscribe();
        session.interaction = null;
      },
    });
  };

  const commandsUpdate = (sessionId: string, cx: acp.AgentContext) => {
    const availableCommands = BUILTIN_COMMANDS.map((c) => ({
      name: c.name,
      description: c.description,
      ...(c.hint ? { input: { hint: c.hint } } : {}),
      _meta: { lembas: { kind: c.kind } },
    }));
    // After the answer, never before it: a client drops updates for a session it does not know yet.
    setTimeout(() => void cx.notify("session/update", { sessionId, update: { sessionUpdate: "available_commands_update", availableCommands } }).catch(() => {}), 0);
  };

  const app = acp
    .agent({ name: "lembas" })
    .onRequest("initialize", ({ params }) => {
      client = detectClient(params.clientCapabilities);
      return initializeResult({ transport: host.transport, config: host.config, client, protocol: host.protocol, limits: host.limits, connection: host.connection });
    })
    .onRequest("session/new", async ({ params, client: cx }) => {
      const cwd = checkCwd(params.cwd);
      const meta = NewSessionMeta.safeParse(params._meta);
      if (!meta.success) throw invalid(`_meta: ${meta.error.issues[0]?.path.join(".")}: ${meta.error.issues[0]?.message}`);
      const requested = meta.data ?? {};
      const model = requested.model ?? (requested.lembas_model && host.connection ? `${host.connection}/${requested.lembas_model}` : undefined);
      let session: Session;
      try {
        session = await host.engine.create({
          cwd,
          mode: lowerMode(requested.mode ?? host.config.mode, host.maxMode),
          maxMode: host.maxMode,
          origin: host.transport,
          ...(model ? { model } : {}),
          ...(requested.effort ? { effort: requested.effort } : {}),
        });
      } catch (error) {
        throw invalid(errorMessage(error));
      }
      attach(session, cx);
      commandsUpdate(session.id, cx);
      return {
        sessionId: session.id,
        modes: modeState(session.mode, host.maxMode),
        _meta: { lembas: { model: session.model, mode: session.mode, effort: session.effort } },
      };
    })
    .onRequest("session/prompt", async ({ params, signal }) => {
      const session = sessionOf(params.sessionId);
      const meta = PromptMeta.safeParse(params._meta);
      const turnId = meta.success ? meta.data?.lembas?.turnId : undefined;
      const onAbort = () => session.cancel();
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        return await runPrompt(session, params.prompt as Block[], turnId, host);
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
    })
    .onRequest("session/set_mode", ({ params }) => {
      const session = sessionOf(params.sessionId);
      const mode = Mode.safeParse(params.modeId);
      if (!mode.success) throw invalid(`modeId must be one of ${Mode.options.join(", ")}`);
      session.setMode(lowerMode(mode.data, host.maxMode));
      return {};
    })
    .onNotification("session/cancel", ({ params }) => {
      attached.get(params.sessionId)?.session.cancel();
    });

  const connection = connectAgent(app, stream);
  return {
    connection,
    async close() {
      for (const { session, detach } of attached.values()) {
        session.close();
        await session.idle();
        detach();
      }
      attached.clear();
    },
  };
}

function checkCwd(cwd: string): string {
  if (!isAbsolute(cwd)) throw invalid(`cwd must be an absolute path, not ${JSON.stringify(cwd)}`);
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw invalid(`cwd ${cwd} is not an existing directory`);
  return cwd;
}

/** Runs one session/prompt: blocks read, a command acted on or expanded, the turn awaited. */
async function runPrompt(session: Session, blocks: Block[], turnId: string | undefined, host: AgentHost) {
  let read: ReturnType<typeof readBlocks>;
  try {
    read = readBlocks(blocks, join(host.paths.attachmentsDir, session.id));
  } catch (error) {
    if (error instanceof BlockError) throw invalid(error.message);
    throw error;
  }
  const command = read.attachments.length === 0 ? parseCommand(read.text) : null;
  if (command?.type === "action") return runAction(session, command.name);
  if (command?.type === "prompt" && command.mode) session.setMode(lowerMode(command.mode, host.maxMode));
  const answer = await session.prompt({
    text: command?.type === "prompt" ? command.text : read.text,
    ...(command?.type === "prompt" ? { display: command.display } : {}),
    ...(turnId ? { turnId } : {}),
    ...(read.attachments.length > 0 ? { attachments: read.attachments } : {}),
  });
  return promptResult(answer, host, command?.name);
}

function promptResult(answer: TurnAnswer, host: AgentHost, command?: string) {
  if (answer.error && host.transport === "stdio") throw new acp.RequestError(-32603, answer.error);
  return {
    stopReason: answer.stopReason === "refusal" ? "refusal" : answer.stopReason,
    _meta: {
      lembas: {
        turnId: answer.turnId,
        ...(answer.unsent ? { unsent: answer.unsent } : {}),
        ...(command ? { command } : {}),
      },
    },
  } as const;
}

/** compact, undo and plan without a task: they act and send nothing to the model. */
async function runAction(session: Session, name: "compact" | "undo" | "plan") {
  const done = (extra: Record<string, unknown>) => ({ stopReason: "end_turn" as const, _meta: { lembas: { command: name, ...extra } } });
  try {
    if (name === "compact") return done({ summary: (await session.compact()).summary });
    if (name === "undo") return done({ undone: session.undo() });
    return done({ mode: session.setMode("plan") });
  } catch (error) {
    if (error instanceof UserError) throw invalid(error.message);
    throw error;
  }
}
