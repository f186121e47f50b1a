import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { claudeToolName } from "../project/claude-tool-names.ts";
import type { StoredMessage } from "./records.ts";

/** The session a transcript is written of. */
type Written = { readonly id: string; readonly cwd: string; messages(): StoredMessage[] };

/**
 * A session's conversation as a JSONL file in Claude Code's line shape (`{type: "user" |
 * "assistant", message: {role, content}}`, content blocks text, thinking, tool_use and
 * tool_result), for hooks: their input's `transcript_path` names it, so that a Stop hook reading
 * the last assistant message works as it does there. Brought up to date before a hook runs: the
 * messages since the last time are appended; a conversation that went back (rewind, undo) is
 * written whole again.
 */
export class HookTranscript {
  private written: { count: number; lastSeq: number } | null = null;

  constructor(
    readonly path: string,
    private readonly session: Written,
  ) {}

  /** Writes what is new; the file's path, or null when it could not be written (the hook runs all the same). */
  refresh(): string | null {
    try {
      this.write();
      return this.path;
    } catch {
      this.written = null;
      return null;
    }
  }

  private write(): void {
    const messages = this.session.messages();
    const { written } = this;
    const goesOn = written !== null && existsSync(this.path) && messages.length >= written.count && (written.count === 0 || messages[written.count - 1]?.seq === written.lastSeq);
    const from = goesOn ? written.count : 0;
    const text = messages
      .slice(from)
      .map((m, i) => `${JSON.stringify(this.line(m, messages[from + i - 1]))}\n`)
      .join("");
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    if (!goesOn) writeFileSync(this.path, text, { mode: 0o600 });
    else if (text) appendFileSync(this.path, text);
    this.written = { count: messages.length, lastSeq: messages.at(-1)?.seq ?? -1 };
  }

  private line(message: StoredMessage, before: StoredMessage | undefined): Record<string, unknown> {
    const common = { uuid: this.uuid(message), parentUuid: before ? this.uuid(before) : null, sessionId: this.session.id, cwd: this.session.cwd };
    if (message.role === "user") return { type: "user", message: { role: "user", content: message.body.text }, ...common };
    if (message.role === "tool") {
      const { callId, output, isError } = message.body;
      return { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: callId, content: output, is_error: isError }] }, ...common };
    }
    const { text, reasoning, toolCalls } = message.body;
    const content = [
      ...(reasoning ? [{ type: "thinking", thinking: reasoning }] : []),
      ...(text ? [{ type: "text", text }] : []),
      ...toolCalls.map((call) => ({ type: "tool_use", id: call.id, name: claudeToolName(call.name) ?? call.name, input: parsed(call.arguments) })),
    ];
    return { type: "assistant", message: { role: "assistant", content }, ...common };
  }

  private uuid(message: StoredMessage): string {
    return `${this.session.id}-${message.seq}`;
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
