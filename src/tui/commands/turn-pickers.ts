import { REWIND_WHATS, type RewindPoint, rewindPoints, type RewindWhat, type Rewound } from "../../engine/rewind.ts";
import { dirsDone } from "../../engine/undo-dirs.ts";
import type { CommandHost } from "../command-host.ts";
import { say } from "./say.ts";

/** How much of a prompt a picker's line shows. */
const PROMPT_CHARS = 72;
/** How many files the rewind's line names before it counts the rest. */
const NAMED = 10;

const WHAT_LABELS: Record<RewindWhat, { label: string; description: string }> = {
  both: { label: "Code and conversation", description: "the files and the conversation as they were before this turn" },
  conversation: { label: "Conversation only", description: "the files stay as they are" },
  code: { label: "Code only", description: "the conversation stays as it is" },
};

/**
 * /rewind [N [both|conversation|code]]: back to before the session's turn N (1 the first), picked
 * from its turns when not said, with its code and conversation, the conversation only, or the code
 * only (the session's rewind, engine/rewind.ts). A conversation taken back puts the turn's prompt
 * in the composer, to send again or change.
 */
export async function rewind(app: CommandHost, args: string): Promise<void> {
  if (app.runtime.session.busy) return say(app, "the session is working: rewind when the turn has ended (Esc interrupts it)", "warn");
  const points = rewindPoints(app.runtime.session.messages());
  if (points.length === 0) return say(app, "there is no turn to rewind to in this session");
  const [number = "", word = ""] = args.split(/\s+/).filter(Boolean);
  const point = number ? pointNumbered(app, points, number, "/rewind") : await pickPoint(app, points, "Rewind to before which turn?");
  if (!point) return;
  if (word && !REWIND_WHATS.includes(word as RewindWhat)) return say(app, `/rewind N takes ${REWIND_WHATS.join(", ")}: not ${word}`, "warn");
  const what = (word as RewindWhat) || (await pickWhat(app, point));
  if (!what) return;
  const rewound = app.runtime.rewind(point.turnId, what);
  say(app, rewoundLine(rewound), rewound.skipped.length > 0 ? "warn" : "info");
  if (what === "code") return;
  app.runtime.showRewound();
  app.compose(point.prompt);
}

/** /fork [N]: a new session with this one's conversation through turn N (picked; all of it first), which it moves to. */
export async function fork(app: CommandHost, args: string): Promise<void> {
  const session = app.runtime.session;
  if (session.busy) return say(app, "the session is working: fork it when the turn has ended", "warn");
  const points = rewindPoints(session.messages());
  if (points.length === 0) return say(app, "there is nothing to fork yet: this session has no turn");
  let through: RewindPoint | null | undefined;
  if (args) through = pointNumbered(app, points, args, "/fork");
  else {
    const items = [{ value: "all", label: "The whole conversation", description: `${points.length} ${points.length === 1 ? "turn" : "turns"}` }, ...pointItems(points, "through")];
    const picked = await app.pick("Fork this session through which turn?", items);
    if (picked === null) return;
    through = picked === "all" ? null : (points.find((p) => p.turnId === picked) ?? null);
  }
  if (through === undefined) return;
  const from = session.id;
  const forked = await app.runtime.fork(through?.turnId ?? null);
  say(app, `forked session ${from} ${through ? `through “${short(through.prompt)}”` : "whole"} into ${forked.id}: you are in the fork now (lembas -r ${from} goes back to the original)`);
}

function pointNumbered(app: CommandHost, points: RewindPoint[], number: string, command: string): RewindPoint | undefined {
  const n = /^\d+$/.test(number) ? Number(number) : Number.NaN;
  const point = points[n - 1];
  if (!point) say(app, `${command} takes a turn's number, 1 to ${points.length}: not ${number}`, "warn");
  return point;
}

async function pickPoint(app: CommandHost, points: RewindPoint[], title: string): Promise<RewindPoint | undefined> {
  const picked = await app.pick(title, pointItems(points, "from"), points.length - 1);
  return points.find((p) => p.turnId === picked);
}

/** The turns as picker items, oldest first: the prompt, and how many turns a pick takes back or keeps. */
function pointItems(points: RewindPoint[], side: "from" | "through"): { value: string; label: string; description: string }[] {
  return points.map((p, i) => {
    const later = points.length - i - (side === "through" ? 1 : 0);
    const description = side === "from" ? `turn ${i + 1} · ${later} ${later === 1 ? "turn" : "turns"} taken back` : `turn ${i + 1} · ${i + 1} kept`;
    return { value: p.turnId, label: short(p.prompt), description };
  });
}

async function pickWhat(app: CommandHost, point: RewindPoint): Promise<RewindWhat | null> {
  const items = REWIND_WHATS.map((what) => ({ value: what, ...WHAT_LABELS[what] }));
  return app.pick(`Rewind to before “${short(point.prompt)}”: what goes back?`, items);
}

/** One line: what went back, the files put back, and each one left as it is with why. */
export function rewoundLine(r: Rewound): string {
  const turns = `${r.turns} ${r.turns === 1 ? "turn" : "turns"}`;
  const files = `${r.files.length} ${r.files.length === 1 ? "file" : "files"} restored`;
  const shown = r.files.slice(0, NAMED).join(", ") + (r.files.length > NAMED ? ` and ${r.files.length - NAMED} more` : "");
  const head =
    r.what === "conversation"
      ? `rewound the conversation to before “${short(r.prompt)}” (${turns}); the files are as they were`
      : `rewound ${r.what === "code" ? "the code" : "the code and the conversation"} to before “${short(r.prompt)}” (${[`${turns}; ${files}${shown ? `: ${shown}` : ""}`, ...dirsDone(r)].join("; ")})`;
  const left = r.skipped.map((s) => `${s.path}: ${s.why}`);
  return left.length > 0 ? `${head}. Left as they are: ${left.join("; ")}` : head;
}

function short(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > PROMPT_CHARS || text.trim().includes("\n") ? `${line.slice(0, PROMPT_CHARS).trimEnd()}…` : line;
}
