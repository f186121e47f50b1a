import type { StoredMessage } from "../engine/records.ts";

export type HistoryTurn =
  | { role: "user"; text: string; turnId?: string; attachments?: { name: string; mimeType: string; size: number }[] }
  | {
      role: "assistant";
      text: string;
      reasoning: string;
      tools: { id: string; name: string; args: unknown; output?: string; isError?: boolean }[];
    };

/**
 * _lembas/session/history's turns from the stored conversation: a user message as the person
 * sees it (a command's name, not its body), and each run of assistant messages and tool results
 * as one assistant turn, its tool calls joined with their results. With `steps`, each model call
 * is its own assistant entry instead, so that its text comes before the tool calls it made.
 */
export function historyTurns(messages: readonly StoredMessage[], opts: { steps?: boolean } = {}): HistoryTurn[] {
  const turns: HistoryTurn[] = [];
  let current: Extract<HistoryTurn, { role: "assistant" }> | null = null;
  for (const message of messages) {
    if (message.role === "user") {
      current = null;
      const attachments = message.body.attachments?.map(({ name, mimeType, size }) => ({ name, mimeType, size }));
      turns.push({
        role: "user",
        text: message.body.display ?? message.body.text,
        ...(message.turnId ? { turnId: message.turnId } : {}),
        ...(attachments?.length ? { attachments } : {}),
      });
      continue;
    }
    // steps: one assistant entry a model call (what the terminal shows, in the order it came), not one a turn.
    if (!current || (opts.steps && message.role === "assistant")) {
      current = { role: "assistant", text: "", reasoning: "", tools: [] };
      turns.push(current);
    }
    if (message.role === "assistant") {
      current.text += current.text && message.body.text ? `\n\n${message.body.text}` : message.body.text;
      current.reasoning += message.body.reasoning;
      for (const call of message.body.toolCalls) current.tools.push({ id: call.id, name: call.name, args: parseArgs(call.arguments) });
      continue;
    }
    const tool = current.tools.find((t) => t.id === message.body.callId);
    if (tool) {
      tool.output = message.body.output;
      tool.isError = message.body.isError;
      if (message.body.args !== undefined) tool.args = message.body.args;
    }
  }
  return turns;
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
