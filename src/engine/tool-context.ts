import type { Effort } from "../config/schema.ts";
import { codeOf } from "./code-capability.ts";
import type { ResolvedModel } from "../model/resolved.ts";
import { protectionJudge } from "../project/protected.ts";
import { findSkills } from "../project/skills.ts";
import type { Jobs } from "../tools/jobs.ts";
import { diskAccess } from "../tools/file-access.ts";
import { buildContext, type Need, type TodoItem, type ToolCallContext, type ToolContext } from "../tools/capabilities.ts";
import { nobody } from "./interaction.ts";
import type { PlanHost } from "./plan-approval.ts";
import type { ReadLedger } from "./read-ledger.ts";
import type { SessionDeps } from "./session-types.ts";
import { applySettings, type KnownModels, type SettingsHost } from "./settings.ts";
import type { HelperHost } from "./task-helper.ts";
import type { TurnUndo } from "./undo.ts";
import type { SessionHooks } from "./hook-set.ts";
import type { WebSearchRoute } from "./search-route.ts";
import { notify } from "./notify-hooks.ts";
import { serverAccess } from "./language-servers.ts";
import { turnMode } from "./mode-cap.ts";

/** The session a tool call runs in, as its tools reach it: its place, its settings, its jobs and what it was made with. */
export type ToolSession = SettingsHost &
  PlanHost &
  HelperHost & {
    readonly model: string | null;
    readonly effort: Effort;
    readonly jobs: Jobs;
    readonly deps: SessionDeps;
    readonly hooks: SessionHooks | null;
  };

/** What the session keeps to itself and lends its tools: what the model has read, the models it knows, its todo list. */
export type ToolParts = {
  readonly reads: ReadLedger;
  /** What the person allowed for the session ("always"): a custom agent's calls are judged with it too. */
  readonly allowed: Set<string>;
  readonly known: KnownModels;
  setTodos(todos: TodoItem[]): void;
};

/** The running turn as its tool calls see it: its signal, its undo, and the model and effort it runs with. */
export type ToolTurn = { readonly signal: AbortSignal; readonly undo: TurnUndo; readonly model: ResolvedModel; readonly effort: Effort; readonly search?: WebSearchRoute | null };

/**
 * What a session hands one tool call (`callId`) of a running turn: the call, and each capability
 * the tool declared (`needs`), made here and only when declared.
 */
export function toolContext(session: ToolSession, parts: ToolParts, turn: ToolTurn, callId: string, needs: readonly Need[]): ToolContext {
  const { signal, undo } = turn;
  const { deps } = session;
  const call: ToolCallContext = {
    sessionId: session.id,
    callId,
    root: session.root,
    cwd: session.cwd,
    signal,
    progress: (output) => session.bus.emit({ type: "progress", callId, output }),
  };
  return buildContext(call, needs, {
    files: () => ({
      markRead: (path, content, from) => {
        parts.reads.mark(path, content, from);
        deps.onFileUse?.(session.root, path);
      },
      readState: (path, now) => parts.reads.state(path, now),
      protection: protectionJudge(session.root, deps.protectedPaths),
    }),
    changes: () => ({ before: async (path, held) => undo.beforeChange(path, held), after: (path, held) => undo.afterChange(path, held) }),
    fileAccess: () => session.fileAccess ?? diskAccess,
    model: () => ({ vision: turn.model.vision }),
    commands: () => ({ ...deps.commands, around: (run) => undo.aroundCommand(run, callId) }),
    jobs: () => session.jobs,
    people: () => ({
      ask: (questions, why) => {
        notify(session.hooks, "elicitation_dialog", `lembas has ${questions.length === 1 ? "a question" : `${questions.length} questions`} for you`);
        return (session.interaction ?? nobody("")).question({ sessionId: session.id, callId, questions, ...(why ? { why } : {}) }, signal);
      },
      submitPlan: (path, text) => {
        notify(session.hooks, "elicitation_dialog", `lembas has a plan for you to approve: ${path}`);
        // Loaded with the first plan or helper asked for, not with every session (bench/START.md).
        return import("./plan-approval.ts").then((m) => m.approvePlan(session, { callId, path, text }, signal));
      },
    }),
    settings: () => ({
      get: () => ({ model: session.model, effort: session.effort, mode: session.mode, models: parts.known.list }),
      set: (change) => applySettings(session, change, callId, signal, session.turnCap ?? undefined),
    }),
    todos: () => ({ set: (todos) => parts.setTodos(todos) }),
    web: () => deps.web,
    search: () => ({ web: (query) => (turn.search ? turn.search.run(query, call) : Promise.resolve({ problem: "This session has no web search: its model's API has none, and config.yaml names no MCP tool for it (web_search: mcp__NAME__TOOL)." })) }),
    library: () => deps.library,
    code: () => codeOf(deps.code, session.root),
    lsp: () =>
      deps.languageServers &&
      serverAccess(deps.languageServers, {
        root: session.root,
        db: deps.db,
        planMode: turnMode(session.mode, session.turnCap ?? null) === "plan",
        warnings: deps.config.lsp_warnings,
        notice: (message) => session.bus.emit({ type: "notice", level: "warn", message }),
        edited: deps.languageServers.editedIn(undo),
      }),
    skills: () => ({ all: () => findSkills({ root: session.root, configDir: deps.paths.configDir }).skills.filter((s) => s.forModel) }),
    helpers: () => ({ subAgent: (prompt, sub, agent) => import("./task-helper.ts").then((m) => m.runHelper(session, { ...turn, allowed: parts.allowed }, callId, prompt, sub, agent)) }),
  });
}
