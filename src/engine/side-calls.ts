import { withoutControls } from "../controls.ts";
import { UserError } from "../errors.ts";
import { streamModel } from "../model/reply-stream.ts";
import type { ChatMessage } from "../model/request.ts";
import { toChatMessages } from "./history.ts";
import type { ModelSource, ResolvedModel } from "../model/resolved.ts";
import type { StoredMessage } from "./records.ts";

// The model calls a session makes beside its turns: a title after the first prompt, and a summary
// when the history is compacted. Neither offers tools; both want the text whole.

const SUMMARY_SYSTEM =
  "You summarise a coding session so that it can go on from the summary alone. Keep: the person's goals and instructions, decisions taken and the reasoning behind them, files read and changed (with paths), commands run and what they showed, open problems, and what comes next. Be precise and complete; leave out chatter.";
const SUMMARY_REQUEST = "Summarise our conversation so far for your own future reference, as instructed. Reply with the summary only.";
const TITLE_SYSTEM =
  "You name coding sessions. Reply with a title of at most six words for the session that starts with the person's message below: no quotes, no punctuation at the end, nothing else.";

/**
 * A title on one line, at most 200 characters, and text only: every title a session takes (from
 * the link, the model, a first prompt) passes here, and terminal control in it is dropped.
 */
export function cleanTitle(title: string): string {
  return withoutControls(title).replace(/\s+/g, " ").trim().slice(0, 200);
}

/** The title a session has until the model names it: the prompt's first line, cut. */
export function provisionalTitle(text: string): string {
  const line = cleanTitle(text.trim().split("\n")[0] ?? "");
  return line.length > 60 ? `${line.slice(0, 57)}…` : line || "New session";
}

/** The model's name for a session that starts with `prompt`; null when it gave nothing usable. */
async function modelTitle(model: ResolvedModel, prompt: string, signal: AbortSignal): Promise<string | null> {
  const text = await completeText(
    model,
    [
      { role: "system", content: TITLE_SYSTEM },
      { role: "user", content: prompt.slice(0, 4000) },
    ],
    signal,
  );
  const title = cleanTitle(withoutControls(text).replace(/^["'#\s]+|["'\s.]+$/g, "").split("\n")[0] ?? "");
  return title ? title.slice(0, 80) : null;
}

/** After a session's first prompt: a short model call names it (stopped by `stop`); a failure keeps the provisional title. */
export async function nameSession(models: ModelSource, ref: string | null, prompt: string, stop: AbortSignal, setTitle: (title: string) => void): Promise<void> {
  try {
    const model = await models.resolve(ref);
    const title = await modelTitle(model, prompt, AbortSignal.any([AbortSignal.timeout(30_000), stop]));
    if (title) setTitle(title);
  } catch {
    // the provisional title stays
  }
}

/** The model's summary of the conversation so far (over the summary before it, if any). */
export async function modelSummary(
  model: ResolvedModel,
  stored: StoredMessage[],
  previous: { summary: string | null; summarySeq: number | null },
  signal: AbortSignal,
): Promise<string> {
  const messages = toChatMessages(SUMMARY_SYSTEM, stored.map(withReasoningShown), { ...previous, vision: false });
  messages.push({ role: "user", content: SUMMARY_REQUEST });
  const summary = (await completeText(model, messages, signal)).trim();
  if (!summary) throw new UserError("the model gave an empty summary", 1);
  return summary;
}

/** The most of one step's reasoning the summariser reads. */
const MAX_REASONING_SUMMARISED = 4_000;

/**
 * A step's reasoning as part of its text, for the summariser: servers drop the reasoning of past
 * steps from the prompt (chat templates strip it), and the summary is where the model's why has to
 * survive a compaction.
 */
function withReasoningShown(message: StoredMessage): StoredMessage {
  if (message.role !== "assistant" || !message.body.reasoning) return message;
  const reasoning = message.body.reasoning.trim();
  const cut = reasoning.length > MAX_REASONING_SUMMARISED ? `${reasoning.slice(0, MAX_REASONING_SUMMARISED)} […]` : reasoning;
  const text = `(my reasoning at this step: ${cut})${message.body.text ? `\n\n${message.body.text}` : ""}`;
  return { ...message, body: { ...message.body, text, reasoning: "" } };
}

/**
 * A side call is tried a few times over seconds, not a turn's minute or two: nobody is told of
 * its waits, and a title or a summary is not worth holding the session that long.
 */
const SIDE_RETRY = { retries: 2, maxTotalMs: 15_000 };

/** One model call without tools whose text is wanted whole. */
async function completeText(model: ResolvedModel, messages: ChatMessage[], signal: AbortSignal): Promise<string> {
  let text = "";
  for await (const event of streamModel(model.endpoint, { model: model.servedId, messages, effort: "off" }, { signal, retry: SIDE_RETRY, rejectedFields: model.rejectedFields })) {
    if (event.type === "text") text += event.delta;
    if (event.type === "error") throw new UserError(event.error.message);
  }
  return text;
}
