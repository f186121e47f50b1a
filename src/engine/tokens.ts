import type { StoredMessage } from "./records.ts";

// A cheap count of the tokens a request holds, for servers that report no usage (and for what was
// added since the last report). Code and English run at 3–4 characters a token; 3.5 errs on the
// side of compacting early. Each message costs a few tokens of its own (role, separators).
const CHARS_PER_TOKEN = 3.5;
const PER_MESSAGE = 4;
/** An image's cost varies by server; a tile or two of a high-detail image is about this. */
const PER_IMAGE = 1_000;

export function tokensOfChars(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The estimated tokens of one stored message as it is sent (reasoning is not sent back). */
export function storedTokens(message: StoredMessage): number {
  switch (message.role) {
    case "user":
      return PER_MESSAGE + tokensOfChars(message.body.text.length) + PER_IMAGE * (message.body.attachments?.filter((a) => a.mimeType.startsWith("image/")).length ?? 0);
    case "assistant": {
      let chars = message.body.text.length;
      for (const call of message.body.toolCalls) chars += call.name.length + call.arguments.length + 30;
      return PER_MESSAGE + tokensOfChars(chars);
    }
    case "tool":
      return PER_MESSAGE + tokensOfChars(message.body.output.length + 20) + PER_IMAGE * (message.body.images?.length ?? 0);
  }
}

/**
 * The tokens of the stored messages after a summary's seq, counted as messages are added: a step
 * counts only the messages that came since the last, never the whole history again.
 */
export class HistoryTally {
  private after: number | null = null;
  private lastSeq = 0;
  private tokens = 0;
  /** The last message counted: a list that no longer holds it was read again, and is counted afresh. */
  private mark: StoredMessage | null = null;

  count(messages: readonly StoredMessage[], summarySeq: number | null): number {
    let i = this.firstAfter(messages);
    const before = messages[i - 1];
    const same = summarySeq === this.after && (this.mark === null ? before === undefined || before.seq <= (summarySeq ?? 0) : before === this.mark);
    if (!same) {
      this.after = summarySeq;
      this.lastSeq = summarySeq ?? 0;
      this.tokens = 0;
      this.mark = null;
      i = this.firstAfter(messages);
    }
    for (; i < messages.length; i++) {
      const message = messages[i];
      if (!message) continue;
      this.tokens += storedTokens(message);
      this.mark = message;
      this.lastSeq = message.seq;
    }
    return this.tokens;
  }

  /** The index of the first message not counted yet, looked for from the end. */
  private firstAfter(messages: readonly StoredMessage[]): number {
    let i = messages.length;
    while (i > 0 && (messages[i - 1]?.seq ?? 0) > this.lastSeq) i--;
    return i;
  }
}
