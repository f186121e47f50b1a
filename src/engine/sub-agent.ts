import { type EngineEvent, SessionBus } from "../bus/index.ts";
import type { CodeIndexBackend } from "../tools/code-search-backend.ts";
import { codeOf } from "./code-capability.ts";
import type { Effort, Mode } from "../config/schema.ts";
import type { ModelSource, ResolvedModel } from "../model/resolved.ts";
import { modelNow } from "./model-now.ts";
import type { RetryPolicy } from "../model/retry.ts";
import { type ProtectedPaths, protectionJudge } from "../project/protected.ts";
import { diskAccess, type FileAccess } from "../tools/file-access.ts";
import { type EngineLanguageServers, serverAccess } from "./language-servers.ts";
import { buildContext, type Capabilities, type CapabilityMakers, type CommandSetup, meetsNeeds, type Need } from "../tools/capabilities.ts";
import type { SubAgentAnswer, Tool, ToolContext } from "../tools/tool.ts";
import { Compaction, type StepRequest } from "./compaction.ts";
import { toChatMessages } from "./history.ts";
import { type Interaction, nobody } from "./interaction.ts";
import { toolSpecs } from "./toolset.ts";
import { ReadLedger } from "./read-ledger.ts";
import type { AssistantRecord, StoredMessage, ToolResultRecord, UserRecord } from "./records.ts";
import { runToolCall } from "./tool-runner.ts";
import type { SessionHooks } from "./hook-set.ts";
import { callModel, type StepOutcome } from "./turn.ts";
import { usedCallIds } from "./call-ids.ts";
import type { TurnUndo } from "./undo.ts";
import { type AgentPlan, leftOutSentence } from "./agent-roster.ts";
import type { PermissionsConfig } from "../config/permission-rules.ts";
import type { Db } from "../store/db.ts";
import { type KeepRules, rulesInForce } from "./session-rules.ts";

/** Model calls a helper makes with its tools; then it is asked once more, without tools, for its answer. */
export const SUB_AGENT_STEPS = 12;
/** The same for a custom agent, whose task may be work rather than a question. */
export const AGENT_STEPS = 40;

/**
 * A custom agent's run: its plan (tools, prompt), the turn's mode as it is now (read for each call,
 * so that a mode the person lowers while the agent works holds for its next call, as for the
 * session's), and what a call of its asks and changes through: the session's interaction, its
 * approvals kept for the session and the rules a card keeps beyond it, the turn's undo, the web's rules.
 */
export type AgentRun = AgentPlan & {
  mode: () => Mode;
  interaction: Interaction;
  allowed: Set<string>;
  keep: KeepRules;
  undo: TurnUndo;
  web: Capabilities["web"];
  jobs: Capabilities["jobs"];
  skills: Capabilities["skills"];
};

/** What a helper runs with: the parent session's place, model and tools, and its bus to tell what the helper does. */
export type SubAgentDeps = {
  bus: SessionBus;
  sessionId: string;
  root: string;
  cwd: string;
  model: ResolvedModel;
  effort: Effort;
  /**
   * What the session has for its own calls (its deps): the helper takes the tools that only read,
   * never task itself; the commands' HOME is what `~` means when a call's paths are judged.
   */
  shared: { tools: readonly Tool[]; models?: Pick<ModelSource, "current">; protectedPaths: ProtectedPaths; commands: CommandSetup; retry?: Partial<RetryPolicy>; config: { permissions: PermissionsConfig; lsp_warnings: boolean }; db: Db; code?: CodeIndexBackend; languageServers?: EngineLanguageServers };
  /** The session's MCP tools: the helper takes those the server marks read-only, after the built-ins. */
  mcpTools?: readonly Tool[];
  /** The session's hooks: its PreToolUse and PostToolUse hooks see the helper's calls too. */
  hooks?: SessionHooks | null;
  /** A custom agent's (task's `agent`); none: the read-only explorer. */
  agent?: AgentRun;
  /** How the session's files are read and written, when not the disk alone (an editor's buffers). */
  fileAccess?: FileAccess | null;
};

/** A message of the helper's conversation, before it is numbered. */
type Entry = { role: "user"; body: UserRecord } | { role: "assistant"; body: AssistantRecord } | { role: "tool"; body: ToolResultRecord };

const LAST_STEP = "You have used all your steps. Answer now, from what you found, without tools.";

/** A custom agent's system prompt: its file's body, then what it is here for and where it works. */
function agentPrompt(agent: AgentRun, root: string, cwd: string, steps: number): string {
  const tools = agent.tools.map((t) => t.name).join(", ") || "none";
  const missing = agent.leftOut.length > 0 ? ` Your instructions may name tools you do not have here: ${leftOutSentence(agent.leftOut)}. Do without them.` : "";
  return [
    agent.agent.prompt,
    `You work as the agent "${agent.agent.name}", a helper of a coding agent: it hands you one task; your last message goes back to it as your answer, not to a person. Your tools: ${tools}.${missing} You have at most ${steps} steps with tools; end with what you found or did, with paths.`,
    `Environment:\n- project root: ${root}\n- working directory: ${cwd}`,
  ]
    .filter((part) => part !== "")
    .join("\n\n");
}

/** The helper's own system prompt: what it is for, what it can do, and the shape of its answer. */
function helperPrompt(root: string, cwd: string, steps: number, mcp: boolean): string {
  const reads = mcp ? "read, grep, glob, list and the read-only tools of MCP servers (mcp__…)" : "read, grep, glob and list";
  return [
    "You are a helper of a coding agent. It hands you one question about a project; your last message goes back to it as your answer, not to a person. Answer that question and nothing else.",
    `You can only read: ${reads}. You cannot change files, run commands or ask anyone. Search first, read what matters, and stop as soon as you can answer.`,
    `You have at most ${steps} steps with tools. Your answer: the facts you found, each with its path:line, short quotes where they help; say plainly what you could not find. No preamble.`,
    `Environment:\n- project root: ${root}\n- working directory: ${cwd}`,
  ].join("\n\n");
}

/**
 * What a helper can give its tools: the project's files as its own model has seen them (a read
 * ledger of its own), its model, and the project's code index. It cannot change files, run commands
 * or jobs, ask anyone, reach the web (a new host asks the person), search a library, or start helpers of its own.
 */
const HELPER_GIVES = ["files", "model", "fileAccess", "code"] as const satisfies readonly Need[];
function helperMakers(deps: SubAgentDeps, ledger: ReadLedger, callId: string): Partial<CapabilityMakers> {
  const agent = deps.agent;
  // A custom agent's changes are the turn's: its undo takes them back with the rest.
  const agentMakers: Partial<CapabilityMakers> = agent
    ? {
        changes: () => ({ before: async (path, held) => agent.undo.beforeChange(path, held), after: (path, held) => agent.undo.afterChange(path, held) }),
        commands: () => ({ ...deps.shared.commands, around: (run) => agent.undo.aroundCommand(run, callId) }),
        web: () => agent.web,
        jobs: () => agent.jobs,
        skills: () => agent.skills,
        lsp: () => {
          const host = deps.shared.languageServers;
          const notice = (message: string) => deps.bus.emit({ type: "notice", level: "warn", message });
          return host && serverAccess(host, { root: deps.root, db: deps.shared.db, planMode: agent.mode() === "plan", warnings: deps.shared.config.lsp_warnings, notice });
        },
      }
    : {};
  return {
    ...agentMakers,
    files: () => ({
      markRead: (path, content, from) => ledger.mark(path, content, from),
      readState: (path, now) => ledger.state(path, now),
      protection: protectionJudge(deps.root, deps.shared.protectedPaths),
    }),
    model: () => ({ vision: deps.model.vision }),
    fileAccess: () => deps.fileAccess ?? diskAccess,
    code: () => codeOf(deps.shared.code, deps.root),
  };
}

/**
 * The tools a helper gets: those of the read class (the plan mode's reads) whose needs it can
 * meet (helperMakers): so not task (no helpers of helpers), fetch (a new host asks the person, and
 * a helper cannot ask), job (the session's background jobs are not a helper's to read or stop) nor
 * library. Of a session's MCP tools, those of the read class: the ones their server marks read-only.
 */
export function helperTools(tools: readonly Tool[]): Tool[] {
  return tools.filter((t) => t.permission === "read" && meetsNeeds(t.needs, HELPER_GIVES));
}

/**
 * Runs a read-only helper on `prompt` in a context of its own, with the model loop's own parts
 * (callModel, runToolCall, Compaction) over a conversation kept in memory: it is no stored session.
 * Its window is kept as a session's is: compacted before a step that would fill it, and after a
 * server refused one as too long. What it streams stays on a bus of its own; its tool calls are
 * told on the parent's bus as sub_tool events of `parentCallId`, and what its model calls cost as usage.
 */
export async function runSubAgent(deps: SubAgentDeps, parentCallId: string, prompt: string, signal: AbortSignal): Promise<SubAgentAnswer> {
  const { agent } = deps;
  const mcp = agent ? [] : helperTools(deps.mcpTools ?? []);
  const indexed = deps.shared.code?.available(deps.root) === true;
  const tools = agent ? agent.tools : [...helperTools(deps.shared.tools).filter((t) => t.name !== "code_search" || indexed), ...mcp];
  const maxSteps = agent ? AGENT_STEPS : SUB_AGENT_STEPS;
  const byName = new Map(tools.map((t) => [t.name, t] as const));
  const bus = new SessionBus(deps.sessionId);
  bus.subscribe(forwarder(deps.bus, parentCallId));
  const ledger = new ReadLedger();
  const system = agent ? agentPrompt(agent, deps.root, deps.cwd, maxSteps) : helperPrompt(deps.root, deps.cwd, maxSteps, mcp.length > 0);
  const history: StoredMessage[] = [];
  // The helper's messages are one turn, the parent's call's: what compaction keeps of a running turn.
  const add = (message: Entry) => history.push({ ...message, seq: history.length + 1, turnId: parentCallId });
  add({ role: "user", body: { text: prompt } });
  let summary: { summary: string | null; summarySeq: number | null } = { summary: null, summarySeq: null };
  const compaction = new Compaction({ bus, messages: () => history, summary: () => summary, keepSummary: (text, seq) => (summary = { summary: text, summarySeq: seq }) });
  let toolCalls = 0;
  const native = { seen: false };
  let model = deps.model;
  const call = (request: StepRequest, step: number): Promise<StepOutcome> =>
    callModel({
      bus,
      turnId: parentCallId,
      step,
      model,
      effort: deps.effort,
      messages: toChatMessages(system, compaction.fitted(history, model), { ...summary, vision: model.vision, afterSummary: compaction.afterSummary(parentCallId, []) }),
      tools: [...request.tools],
      signal,
      native,
      usedCallIds: usedCallIds(history),
      ...(deps.shared.retry ? { retry: deps.shared.retry } : {}),
      onUsage: (usage) => {
        compaction.reportUsage(model, usage.promptTokens);
        deps.bus.emit({ type: "usage", ...usage });
      },
    });
  const cancelled = (steps: number): SubAgentAnswer => ({ text: "Cancelled: the turn was stopped.", isError: true, steps, toolCalls });
  for (let step = 1; ; step++) {
    if (signal.aborted) return cancelled(step - 1);
    const now = await modelNow(deps.shared.models, model);
    if ("gone" in now) return { text: `The helper's model call was not made: ${now.gone}`, isError: true, steps: step - 1, toolCalls };
    model = now;
    const last = step > maxSteps;
    if (last) add({ role: "user", body: { text: LAST_STEP } });
    const request: StepRequest = { model, turnId: parentCallId, todos: [], system, tools: last ? [] : toolSpecs(tools, model), signal };
    await compaction.beforeStep(request);
    let outcome = await call(request, step);
    // A server that found the request too long: compacted, the step is sent once more, as a session's is.
    if (compaction.overflowed(outcome, model)) {
      const why = await compaction.afterOverflow(request, outcome.error);
      if (why !== null) return { text: `The helper's model call failed: ${why}`, isError: true, steps: step, toolCalls };
      outcome = await call(request, step);
    }
    if (outcome.kind === "cancelled") return cancelled(step);
    if (outcome.kind === "failed") return { text: `The helper's model call failed: ${outcome.error.message}`, isError: true, steps: step, toolCalls };
    const { record } = outcome;
    if (last || record.toolCalls.length === 0) return { text: record.text, isError: false, steps: step, toolCalls };
    add({ role: "assistant", body: record });
    for (const call of record.toolCalls) {
      if (signal.aborted) return cancelled(step);
      toolCalls++;
      const result = await runToolCall(call, {
        sessionId: deps.sessionId,
        bus,
        tools: byName,
        // A custom agent works in the turn's mode and asks the person as the session does; the explorer only reads.
        mode: agent ? agent.mode() : "plan",
        root: deps.root,
        protectedPaths: deps.shared.protectedPaths,
        allowed: agent?.allowed ?? new Set(),
        ...(agent ? { keep: agent.keep } : {}),
        // The person's deny rules hold for the helper's calls too (Read(~/.ssh/**)).
        rules: rulesInForce(deps.root, deps.shared.config, deps.shared.db).rules,
        interaction: agent?.interaction ?? nobody("a helper cannot ask the person: answer from inside the project"),
        signal,
        home: deps.shared.commands.env.HOME,
        context: (callId, needs) => helperContext(deps, callId, needs, signal, ledger),
        hooks: deps.hooks ?? null,
        ...(agent ? { afterExecute: () => agent.undo.afterTool() } : {}),
      });
      add({ role: "tool", body: result });
    }
  }
}

/** Tells the parent's bus what the helper's own bus says of its calls and its cost; the rest (its text) stays. */
function forwarder(parent: SessionBus, parentCallId: string): (event: EngineEvent) => void {
  const titles = new Map<string, string>();
  return (event) => {
    switch (event.type) {
      case "tool_start":
        titles.set(event.callId, event.title);
        return parent.emit({ type: "sub_tool", parentCallId, callId: event.callId, name: event.name, title: event.title, status: "in_progress" });
      case "tool_end":
        return parent.emit({
          type: "sub_tool",
          parentCallId,
          callId: event.callId,
          name: event.name,
          title: titles.get(event.callId) ?? event.name,
          status: event.isError ? "failed" : "completed",
          ...(event.diffs?.length && !event.isError ? { diffs: event.diffs } : {}),
        });
      case "tool_denied":
        return parent.emit({ type: "sub_tool", parentCallId, callId: event.callId, name: event.name, title: event.title, status: "failed" });
      case "notice":
        return parent.emit({ ...event, message: `the helper: ${event.message}`, ...(event.retry ? { retry: { ...event.retry, reason: `the helper: ${event.retry.reason}` } } : {}) });
      default:
        return;
    }
  };
}

/** A helper's call: the session's place, its own signal, nothing streamed, and the capabilities its tool declared. */
function helperContext(deps: SubAgentDeps, callId: string, needs: readonly Need[], signal: AbortSignal, ledger: ReadLedger): ToolContext {
  const call = { sessionId: deps.sessionId, callId, root: deps.root, cwd: deps.cwd, signal, progress: () => {} };
  return buildContext(call, needs, helperMakers(deps, ledger, callId));
}
