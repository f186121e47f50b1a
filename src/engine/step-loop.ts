import type { Effort } from "../config/schema.ts";
import type { ToolSpec } from "../model/request.ts";
import type { ResolvedModel } from "../model/resolved.ts";
import { modelNow } from "./model-now.ts";
import type { TodoItem } from "../tools/tool.ts";
import type { Compaction } from "./compaction.ts";
import { toChatMessages } from "./history.ts";
import { nobody } from "./interaction.ts";
import { LoopGuard } from "./loop-guard.ts";
import { findAgentFiles } from "../project/agent-files.ts";
import { agentListings } from "./agent-roster.ts";
import { turnMode } from "./mode-cap.ts";
import { modeNotes } from "./mode-notes.ts";
import type { NewMessage, StoredMessage, UserRecord } from "./records.ts";
import type { SessionPrompt } from "./session-prompt.ts";
import type { PromptInput } from "./session-types.ts";
import { runStepCalls } from "./step-calls.ts";
import { toolContext, type ToolParts, type ToolSession } from "./tool-context.ts";
import { offeredTools, toolSpecs } from "./toolset.ts";
import { webSearchRoute } from "./search-route.ts";
import { usedCallIds } from "./call-ids.ts";
import { callModel, type NativeCalls, type StepOutcome, type StopReason, skippedResults } from "./turn.ts";
import type { TurnUndo } from "./undo.ts";
import { MAX_STOP_BLOCKS, stopHooks } from "./turn-hooks.ts";
import { ruleKeeper, rulesInForce } from "./session-rules.ts";

const DEFAULT_MAX_STEPS = 100;

/** The session a turn's steps run in: what its tools reach, its system prompt and its conversation. */
export type StepSession = ToolSession & {
  readonly systemPrompt: SessionPrompt;
  messages(): StoredMessage[];
};

/** What the session keeps to itself and lends its steps: its compaction, the approvals kept, the inbox, its todos and summary, and the way to store a message. */
export type StepParts = ToolParts & {
  readonly compaction: Compaction;
  /** Steering messages for the running turn, taken at its next step. */
  readonly inbox: { text: string; id?: string }[];
  todos(): TodoItem[];
  summary(): { summary: string | null; summarySeq: number | null };
  append(message: NewMessage): void;
};

/** One turn to run: its id, its input, its signal and its undo. */
export type StepTurn = { turnId: string; input: PromptInput; signal: AbortSignal; undo: TurnUndo };

type Ended = { stopReason: StopReason; error?: string };

/**
 * Runs a turn's steps: the model called, the tools it asks for run, until it answers without
 * tools, is cancelled or fails, or the step limit is reached. A command's model or effort holds for
 * the turn: said when it takes over, and when the session's own comes back.
 */
export async function runSteps(session: StepSession, parts: StepParts, turn: StepTurn): Promise<Ended> {
  const { input } = turn;
  const model = await session.deps.models.resolve(input.model ?? session.model);
  const effort = input.effort ?? session.effort;
  const own = (input.model !== undefined && model.ref !== session.model) || effort !== session.effort;
  if (!own) return await sayDiagnostics(session, turn, await steps(session, parts, turn, model, effort));
  session.bus.emit({ type: "model", ref: model.ref, effort, connection: model.connection });
  try {
    return await sayDiagnostics(session, turn, await steps(session, parts, turn, model, effort));
  } finally {
    const back = await session.deps.models.resolve(session.model).catch(() => null);
    session.bus.emit({ type: "model", ref: session.model, effort: session.effort, connection: back?.connection ?? null });
  }
}

/** At the end of a turn that edited files: one line for the errors their language servers see in them. */
async function sayDiagnostics(session: StepSession, turn: StepTurn, ended: Ended): Promise<Ended> {
  const summary = (await session.deps.languageServers?.turnSummary(turn.undo)) ?? null;
  if (summary) session.bus.emit({ type: "notice", level: "warn", message: summary });
  return ended;
}

async function steps(session: StepSession, parts: StepParts, turn: StepTurn, resolved: ResolvedModel, effort: Effort): Promise<Ended> {
  let model = resolved;
  const { turnId, signal, undo } = turn;
  const { deps, bus } = session;
  const maxSteps = deps.maxSteps ?? DEFAULT_MAX_STEPS;
  const guard = new LoopGuard();
  const native: NativeCalls = { seen: false };
  const mode = () => turnMode(session.mode, session.turnCap);
  parts.known.refresh(deps.models);
  // Counted for the whole turn: a tool call between two stops does not start the count again.
  let stopBlocks = 0;
  // What the project's files hold but lembas leaves out is said once a turn, when a call is judged.
  let rulesSaid = false;
  for (let step = 1; step <= maxSteps; step++) {
    if (signal.aborted) return { stopReason: "cancelled" };
    const now = await modelNow(deps.models, model);
    if ("gone" in now) return { stopReason: "end_turn", error: now.gone };
    model = now;
    const skills = (await session.systemPrompt.skills()).length > 0;
    const mcp = (await session.mcp?.tools(session.interaction ?? nobody(""), signal, mode())) ?? [];
    const agents = agentListings(findAgentFiles({ root: session.root, configDir: deps.paths.configDir }), [...deps.tools, ...mcp]);
    const code = deps.code?.available(session.root) === true;
    const lsp = deps.languageServers?.offered(session.root, mode() === "plan") === true;
    const search = webSearchRoute(deps.config.web_search, model, mcp);
    // The MCP tool that runs web_search is offered as web_search alone, not twice.
    const tools = offeredTools(deps.tools, model, { library: deps.library, code, skills, agents, lsp, webSearch: search !== null }, search ? mcp.filter((t) => t.name !== search.via) : mcp);
    const request = { model, turnId, todos: parts.todos(), system: await session.systemPrompt.text(model), tools: toolSpecs(tools, model), signal, native };
    await parts.compaction.beforeStep(request);
    if (takeInbox(session, parts, turnId)) guard.forget();
    bus.emit({ type: "step", turnId, step });
    let outcome = await callStep(session, parts, request, effort, step);
    // The project's index is brought up to date in the background once the first answer is in: never before a request.
    if (code && step === 1) deps.code?.warm(session.root, (message) => bus.emit({ type: "notice", level: "warn", message }));
    // A server that found the request too long: compacted, the step is sent once more.
    if (parts.compaction.overflowed(outcome, model)) {
      const why = await parts.compaction.afterOverflow(request, outcome.error);
      if (why !== null) return { stopReason: "end_turn", error: why };
      const still = await modelNow(deps.models, model);
      if ("gone" in still) return { stopReason: "end_turn", error: still.gone };
      outcome = await callStep(session, parts, request, effort, step);
    }
    const { record } = outcome;
    if (record.text || record.reasoning || record.toolCalls.length > 0) parts.append({ role: "assistant", body: record, turnId });
    if (outcome.kind !== "reply") {
      for (const r of skippedResults(record.toolCalls, "Not run: the reply was cut off.")) parts.append({ role: "tool", body: r, turnId });
      if (outcome.kind === "cancelled") return { stopReason: "cancelled" };
      return { stopReason: "end_turn", error: outcome.error.message };
    }
    if (record.toolCalls.length === 0) {
      if (parts.inbox.length > 0 && outcome.finish === "end_turn") continue;
      if (outcome.finish !== "refusal" && (await goesOn(session, parts, turnId, stopBlocks, signal))) {
        stopBlocks++;
        continue;
      }
      return { stopReason: outcome.finish === "tool_calls" ? "end_turn" : outcome.finish };
    }
    const byName = new Map(tools.map((t) => [t.name, t] as const));
    const inForce = rulesInForce(session.root, deps.config, deps.db);
    if (!rulesSaid) for (const message of inForce.notes) bus.emit({ type: "notice", level: "warn", message });
    rulesSaid = true;
    const ended = await runStepCalls({
      calls: record.toolCalls,
      deps: () => ({
        sessionId: session.id,
        bus,
        tools: byName,
        mode: mode(),
        root: session.root,
        protectedPaths: deps.protectedPaths,
        home: deps.commands.env.HOME,
        allowed: parts.allowed,
        rules: inForce.rules,
        keep: ruleKeeper(deps.db, bus, session),
        interaction: session.interaction ?? nobody("nobody can approve it in this session"),
        signal,
        context: (callId, needs) => toolContext(session, parts, { signal, undo, model, effort, search }, callId, needs),
        afterExecute: () => undo.afterTool(),
        hooks: session.hooks,
      }),
      guard,
      signal,
      record: (result) => parts.append({ role: "tool", body: undo.annotate(result), turnId }),
    });
    if (ended) return { stopReason: ended };
  }
  return { stopReason: "max_turn_requests" };
}

type ModelStep = { model: ResolvedModel; turnId: string; system: string; tools: ToolSpec[]; signal: AbortSignal; native: NativeCalls };

function callStep(session: StepSession, parts: StepParts, request: ModelStep, effort: Effort, step: number): Promise<StepOutcome> {
  const { model, turnId } = request;
  const { compaction } = parts;
  const afterSummary = compaction.afterSummary(turnId, parts.todos());
  const stored = session.messages();
  const sent = compaction.fitted(stored, model);
  const { summary, summarySeq } = parts.summary();
  const notes = modeNotes(sent, summarySeq, model);
  return callModel({
    bus: session.bus,
    turnId,
    step,
    model,
    effort,
    messages: toChatMessages(request.system, sent, { summary, summarySeq, vision: model.vision, afterSummary, notes }),
    tools: request.tools,
    signal: request.signal,
    native: request.native,
    usedCallIds: usedCallIds(stored),
    ...(session.deps.retry ? { retry: session.deps.retry } : {}),
    onUsage: (usage) => {
      compaction.reportUsage(model, usage.promptTokens);
      session.bus.emit({ type: "usage", ...usage, contextLimit: compaction.window(model) });
    },
  });
}

/** Steering messages sent since the last step, stored as the person's and said taken. True when there were any. */
function takeInbox(session: StepSession, parts: StepParts, turnId: string): boolean {
  if (parts.inbox.length === 0) return false;
  const taken = parts.inbox.splice(0);
  for (const m of taken) parts.append({ role: "user", body: { text: m.text, steer: true } satisfies UserRecord, turnId });
  session.bus.emit({ type: "steered", texts: taken.map((m) => m.text), ...(taken.some((m) => m.id) ? { ids: taken.flatMap((m) => (m.id ? [m.id] : [])) } : {}) });
  return true;
}

/**
 * Whether a Stop hook sends the model on: its reason becomes the next message, as the person's
 * (stored as a steering message: undo still takes the turn back from the person's own prompt).
 * After MAX_STOP_BLOCKS in a turn it ends all the same, said. `stop_hook_active` is true from the
 * first block to the turn's end, as in Claude Code, so a hook's guard on it holds across tool calls.
 */
async function goesOn(session: StepSession, parts: StepParts, turnId: string, blocks: number, signal: AbortSignal): Promise<boolean> {
  if (!session.hooks || signal.aborted) return false;
  const reason = await stopHooks(session.hooks, blocks > 0, signal);
  if (reason === null || signal.aborted) return false;
  if (blocks >= MAX_STOP_BLOCKS) {
    session.bus.emit({ type: "notice", level: "warn", message: `a Stop hook asked the model to go on ${MAX_STOP_BLOCKS} times in this turn: the turn ends here (its last reason: ${reason.slice(0, 300)})` });
    return false;
  }
  parts.append({ role: "user", body: { text: `[Stop hook] ${reason}`, steer: true } satisfies UserRecord, turnId });
  return true;
}
