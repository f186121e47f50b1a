import { z } from "zod";
import type { Interaction, PermissionDecision, PermissionRequest } from "../engine/interaction.ts";
import type { acp } from "../rpc/agent.ts";
import { lazily } from "../lazy.ts";

const Answer = lazily(() =>
  z.looseObject({
    outcome: z.union([
      z.looseObject({ outcome: z.literal("selected"), optionId: z.string() }),
      z.looseObject({ outcome: z.literal("cancelled") }),
    ]),
    _meta: z.looseObject({ lembas: z.looseObject({ command: z.string().optional(), feedback: z.string().optional() }).optional() }).nullish(),
  }),
);

/** session/request_permission's params for an approval the engine needs (the spec's card). */
export function permissionParams(request: PermissionRequest, extra: { patient?: boolean } = {}): acp.RequestPermissionRequest {
  return {
    sessionId: request.sessionId,
    toolCall: {
      toolCallId: request.callId,
      title: request.title,
      kind: request.kind,
      status: "pending" as const,
      rawInput: request.rawInput,
      ...cardContent(request),
    },
    options: [
      { optionId: "once", name: "Allow once", kind: "allow_once" as const },
      ...(request.always ? [{ optionId: "session", name: `Always allow ${request.always}${ruleNamed(request)}`, kind: "allow_always" as const }] : []),
      { optionId: "deny", name: "Deny", kind: "reject_once" as const },
    ],
    _meta: {
      lembas: {
        reason: request.reason,
        ...(request.description ? { purpose: request.description } : {}),
        ...(request.always ? { always: request.always } : {}),
        ...extra,
      },
    },
  };
}

/** The rules "session" keeps, in the peers' shape, where its label does not already name them: " (Bash(npm test:*))". */
function ruleNamed(request: PermissionRequest): string {
  const rules = request.keep?.filter((rule) => !request.always?.includes(rule)) ?? [];
  return rules.length > 0 ? ` (${rules.join(", ")})` : "";
}

/**
 * What the card shows under its title: the command and the directory it runs in (the model's
 * description after them), or the diffs of the files it would change.
 */
function cardContent(request: PermissionRequest): { content?: acp.ToolCallContent[] } {
  const content: acp.ToolCallContent[] = [];
  if (request.command) {
    const fence = "`".repeat(Math.max(3, ...[...request.command.line.matchAll(/`+/g)].map((m) => m[0].length + 1)));
    const said = request.description ? `\nThe model describes it as: ${request.description}` : "";
    const text = `${fence}sh\n${request.command.line}\n${fence}\nin ${request.command.cwd}${said}`;
    content.push({ type: "content", content: { type: "text", text } });
  } else if (request.description) {
    content.push({ type: "content", content: { type: "text", text: request.description } });
  }
  for (const diff of request.diffs ?? []) content.push({ type: "diff", path: diff.path, oldText: diff.oldText, newText: diff.newText });
  return content.length > 0 ? { content } : {};
}

/** Reads the client's answer: a cancelled outcome, or anything unreadable, is a denial. */
export function readDecision(answer: unknown): PermissionDecision {
  const parsed = Answer().safeParse(answer);
  if (!parsed.success) return { outcome: "deny", feedback: "the editor's answer could not be read", unanswered: true };
  if (parsed.data.outcome.outcome === "cancelled") return { outcome: "deny", feedback: "the editor cancelled the request", unanswered: true };
  const id = parsed.data.outcome.optionId;
  const meta = parsed.data._meta?.lembas;
  if (id === "once" || id === "session") {
    return { outcome: id, ...(meta?.command ? { command: meta.command } : {}) };
  }
  return { outcome: "deny", ...(meta?.feedback ? { feedback: meta.feedback } : {}) };
}

/**
 * Approvals asked of an ACP client, each after `before` (which tells the client of the tool call
 * first); questions and plans have nobody to answer them (plain ACP).
 */
export function acpInteraction(client: acp.AgentContext, before: (request: PermissionRequest) => void = () => {}): Interaction {
  return {
    async permission(request, signal) {
      before(request);
      const unanswered: PermissionDecision = { outcome: "deny", feedback: "the editor did not answer the request", unanswered: true };
      if (signal.aborted) return unanswered;
      try {
        const answer = await unlessCancelled(client.request("session/request_permission", permissionParams(request), { cancellationSignal: signal }), signal);
        return readDecision(answer);
      } catch {
        return unanswered;
      }
    },
    question: async () => ({ outcome: "nobody" }),
    plan: async () => ({ outcome: "nobody" }),
  };
}

/**
 * The editor's answer, not waited for once the turn is cancelled: the editor is told so
 * ($/cancel_request) and may answer late or never (it went away: its turns were cancelled for
 * that), and a turn that waited on it held its session and its editor's connection for good.
 */
function unlessCancelled<T>(answer: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const cancelled = () => reject(signal.reason);
    signal.addEventListener("abort", cancelled, { once: true });
    answer.then(resolve, reject).finally(() => signal.removeEventListener("abort", cancelled));
  });
}
