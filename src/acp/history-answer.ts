import type { HistoryTurn } from "../transcript/history-turns.ts";

/**
 * The most bytes one _lembas/session/history answer may be: half of the smallest message a link's
 * instance takes (16 MiB, Bun's and uvicorn's WebSocket default). A larger answer closes the link,
 * and the web asks again after the redial: the same answer would close it every time.
 */
export const HISTORY_ANSWER_BYTES = 8 * 1024 * 1024;

/** Below this a text is never cut: the history is then made to fit by leaving out its oldest turns. */
const SMALLEST_CUT = 4 * 1024;
/** Bytes a turn and a tool call take beside their texts (keys, ids, names), counted high. */
const TURN_BYTES = 256;
const TOOL_BYTES = 256;

/** One text of the history that may be cut: a message, a reasoning, a tool's output or its arguments. */
type Slot = { text: string; bytes: number; set(text: string): void };

/**
 * The history's turns cut to fit one answer of at most `maxBytes`: the longest texts first, each
 * to the same length, with a line saying how much of it was left out; when that is not enough,
 * the oldest turns are left out, and a first turn says how many. The store keeps everything.
 */
export function boundedHistory(turns: readonly HistoryTurn[], maxBytes = HISTORY_ANSWER_BYTES): HistoryTurn[] {
  let budget = maxBytes;
  for (let attempt = 0; attempt < 6; attempt++) {
    const fitted = fit(turns, budget, maxBytes);
    const bytes = jsonBytes(fitted);
    if (bytes <= maxBytes) return fitted;
    // Escapes and characters beyond ASCII take more than the estimate: try again with less.
    budget = Math.floor((budget * maxBytes) / bytes / 1.1);
  }
  return [leftOutNote(turns.length, maxBytes)];
}

function fit(turns: readonly HistoryTurn[], budget: number, maxBytes: number): HistoryTurn[] {
  let kept = turns.map(copyTurn);
  let slots = kept.flatMap(slotsOf);
  let room = budget - structureBytes(kept);
  let dropped = 0;
  // Even texts cut to the smallest do not fit: the oldest turns go first.
  while (kept.length > 0 && slots.reduce((sum, s) => sum + Math.min(s.bytes, SMALLEST_CUT + MARKER_BYTES), 0) > room) {
    const cut = Math.max(1, Math.ceil(kept.length / 8));
    kept = kept.slice(cut);
    dropped += cut;
    slots = kept.flatMap(slotsOf);
    room = budget - structureBytes(kept) - TURN_BYTES;
  }
  const level = levelFor(slots.map((s) => s.bytes), room);
  if (level !== null) for (const slot of slots) if (slot.bytes > level) slot.set(cutText(slot.text, Math.floor((level / slot.bytes) * slot.text.length), maxBytes));
  return dropped > 0 ? [leftOutNote(dropped, maxBytes), ...kept] : kept;
}

/** The length every text longer than it is cut to, so that all of them fit `room`; null when all fit as they are. */
function levelFor(sizes: readonly number[], room: number): number | null {
  const total = sizes.reduce((sum, n) => sum + n, 0);
  if (total <= room) return null;
  const sorted = [...sizes].sort((a, b) => a - b);
  let below = 0;
  for (let i = 0; i < sorted.length; i++) {
    const left = sorted.length - i;
    const level = Math.floor((room - below) / left);
    if (level <= (sorted[i] ?? 0)) return Math.max(SMALLEST_CUT, level - MARKER_BYTES);
    below += sorted[i] ?? 0;
  }
  return null;
}

/** What the line saying what was left out takes, counted high. */
const MARKER_BYTES = 200;

/** A text's head and tail, `keep` characters in all, with what was left out between them said. */
function cutText(text: string, keep: number, maxBytes: number): string {
  const head = text.slice(0, Math.ceil(keep * 0.7));
  const tail = text.slice(text.length - (keep - head.length));
  const left = text.length - head.length - tail.length;
  return `${head}\n[… ${left.toLocaleString("en-US")} characters left out here: one history answer carries at most ${sizeSaid(maxBytes)}; the whole text stays on the device]\n${tail}`;
}

function leftOutNote(turns: number, maxBytes: number): HistoryTurn {
  return {
    role: "assistant",
    text: `[… the ${turns.toLocaleString("en-US")} oldest turns of this session are left out: one history answer carries at most ${sizeSaid(maxBytes)}; they stay on the device]`,
    reasoning: "",
    tools: [],
  };
}

function sizeSaid(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MB` : `${Math.round(bytes / 1024)} KB`;
}

function copyTurn(turn: HistoryTurn): HistoryTurn {
  return turn.role === "user" ? { ...turn } : { ...turn, tools: turn.tools.map((t) => ({ ...t })) };
}

function slotsOf(turn: HistoryTurn): Slot[] {
  const slot = (text: string, set: (text: string) => void): Slot => ({ text, bytes: Buffer.byteLength(text), set });
  if (turn.role === "user") return [slot(turn.text, (t) => (turn.text = t))];
  const slots = [slot(turn.text, (t) => (turn.text = t)), slot(turn.reasoning, (t) => (turn.reasoning = t))];
  for (const tool of turn.tools) {
    if (tool.output !== undefined) slots.push(slot(tool.output, (t) => (tool.output = t)));
    // Arguments that must be cut are sent as their cut JSON text.
    const args = typeof tool.args === "string" ? tool.args : (JSON.stringify(tool.args) ?? "");
    slots.push(slot(args, (t) => (tool.args = t)));
  }
  return slots;
}

function structureBytes(turns: readonly HistoryTurn[]): number {
  return turns.reduce((sum, t) => sum + TURN_BYTES + (t.role === "assistant" ? t.tools.length * TOOL_BYTES : 0), 1024);
}

function jsonBytes(turns: readonly HistoryTurn[]): number {
  return Buffer.byteLength(JSON.stringify(turns));
}
