import type { Mode } from "../config/mode-effort.ts";
import type { Db } from "../store/db.ts";
import { appendMessage } from "../store/messages.ts";
import { updateSession } from "../store/sessions.ts";
import { setTurnState } from "../store/turns.ts";
import type { UserRecord } from "./records.ts";
import type { PromptInput } from "./session-types.ts";

/** The person's message as a turn stores it: what the model is sent, what they typed and attached, and the mode it ran in. */
export function userRecord(input: PromptInput, mode: Mode): UserRecord {
  return {
    text: input.text,
    ...(input.display !== undefined ? { display: input.display } : {}),
    ...(input.attachments?.length ? { attachments: input.attachments } : {}),
    ...(input.blocks ? { blocks: input.blocks } : {}),
    mode,
  };
}

/** One commit for a turn's start: its state, the person's message and, for a session's first prompt, a first title. The message's seq. */
export function storeTurnStart(db: Db, sessionId: string, turnId: string, user: UserRecord, title: string | null): number {
  return db
    .transaction(() => {
      setTurnState(db, sessionId, turnId, "running");
      const row = appendMessage(db, sessionId, "user", user, turnId);
      if (title) updateSession(db, sessionId, { title });
      return row.seq;
    })
    .immediate();
}
