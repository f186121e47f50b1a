import type { Effort } from "../config/schema.ts";
import type { ResolvedModel } from "../model/resolved.ts";
import { protectionJudge } from "../project/protected.ts";
import type { Jobs } from "../tools/jobs.ts";
import type { TodoItem, ToolContext } from "../tools/tool.ts";
import { nobody } from "./interaction.ts";
import { approvePlan, type PlanHost } from "./plan-approval.ts";
import type { ReadLedger } from "./read-ledger.ts";
import type { SessionDeps } from "./session-types.ts";
import { applySettings, type KnownModels, type SettingsHost } from "./settings.ts";
import { type HelperHost, runHelper } from "./task-helper.ts";
import type { TurnUndo } from "./undo.ts";

/** The session a tool call runs in, as its tools reach it: its place, its settings, its jobs and what it was made with. */
export type ToolSession = SettingsHost &
  PlanHost &
  HelperHost & {
    readonly model: string | null;
    readonly effort: Effort;
    readonly jobs: Jobs;
    readonly deps: SessionDeps;
  };

/** What the session keeps to itself and lends its tools: what the model has read, the models it knows, its todo list. */
export type ToolParts = {
  readonly reads: ReadLedger;
  readonly known: KnownModels;
  setTodos(todos: TodoItem[]): void;
};

/** The running turn as its tool calls see it: its signal, its undo, and the model and effort it runs with. */
export type ToolTurn = { readonly signal: AbortSignal; readonly undo: TurnUndo; readonly model: ResolvedModel; readonly effort: Effort };

/** What a session hands one tool call (`callId`) of a running turn. */
export function toolContext(session: ToolSession, parts: ToolParts, turn: ToolTurn, callId: string): ToolContext {
  const { signal, undo } = turn;
  const { deps } = session;
  return {
    sessionId: session.id,
    callId,
    root: session.root,
    cwd: session.cwd,
    signal,
    vision: turn.model.vision,
    protection: protectionJudge(session.root, deps.protectedPaths),
    commands: deps.commands,
    web: deps.web,
    jobs: session.jobs,
    library: deps.library,
    progress: (output) => session.bus.emit({ type: "progress", callId, output }),
    beforeChange: async (path) => undo.beforeChange(path),
    afterChange: (path) => undo.afterChange(path),
    aroundCommand: (run) => undo.aroundCommand(run, callId),
    markRead: (path, content) => {
      parts.reads.mark(path, content);
      deps.onFileUse?.(session.root, path);
    },
    readState: (path) => parts.reads.state(path),
    ask: (questions, why) => (session.interaction ?? nobody("")).question({ sessionId: session.id, callId, questions, ...(why ? { why } : {}) }, signal),
    submitPlan: (path, text) => approvePlan(session, { callId, path, text }, signal),
    setTodos: (todos) => parts.setTodos(todos),
    subAgent: (prompt, sub) => runHelper(session, turn, callId, prompt, sub),
    settings: {
      get: () => ({ model: session.model, effort: session.effort, mode: session.mode, models: parts.known.list }),
      set: (change) => applySettings(session, change, callId, signal, session.turnCap ?? undefined),
    },
  };
}
