import { errorMessage, UserError } from "../errors.ts";
import { deleteAnywhere } from "../app/device-delete.ts";
import { type Hold, heldElsewhere } from "../store/placement.ts";
import { type SessionRow, sessionsUntouchedSince } from "../store/sessions.ts";
import { pruneTurns } from "../store/turns.ts";
import { askLine } from "./ask.ts";
import { defineCommand } from "./command.ts";
import { createContext } from "../app/context.ts";
import { SESSION_HEADER, sessionCells, sessionCount, table } from "./session-rows.ts";
import { createEngine } from "../app/start-engine.ts";

/**
 * `lembas sessions prune`: says which sessions it would delete and asks at a terminal (`--yes`
 * for scripts; neither refuses); a session another live lembas holds is kept and named, unless
 * `--include-open`.
 */
export const prune = defineCommand({
  meta: { name: "prune", description: "Delete the sessions untouched for a while (default 30 days), after saying which and asking", examples: ["lembas sessions prune --older-than 7d"] },
  args: {
    "older-than": { type: "string", default: "30d", valueHint: "AGE", description: "an age: 30d, 12h, 90m" },
    yes: { type: "boolean", alias: "y", description: "delete without asking (for scripts)" },
    "include-open": { type: "boolean", description: "also delete sessions open in another lembas process (a terminal, the service), which are kept otherwise" },
  },
  async run({ args }) {
    const age = args["older-than"];
    const cutoff = Date.now() - parseAge(age);
    const asking = !args.yes;
    const ctx = createContext();
    const db = ctx.db();
    const old = sessionsUntouchedSince(db, cutoff);
    const open = args["include-open"] ? [] : holdsOf(old, (id) => heldElsewhere(db, id));
    const openIds = new Set(open.map((h) => h.sessionId));
    const doomed = old.filter((s) => !openIds.has(s.id));
    if (doomed.length > 0 && asking && !process.stdin.isTTY) {
      throw new UserError(`sessions prune would delete ${sessionCount(doomed.length)} and asks first: run it at a terminal, or with --yes`, 2);
    }
    say(pruneListing(doomed, open, age));
    if (doomed.length === 0) return;
    if (asking && !(await confirmed(`Delete ${doomed.length === 1 ? "this session" : `these ${doomed.length} sessions`}? [y/N] `))) {
      say(["lembas: nothing was deleted"]);
      return;
    }
    const { failures, skipped } = await deleteSessions(
      ctx,
      doomed.map((s) => s.id),
      // Opened meanwhile: kept as well, and said.
      args["include-open"] ? () => null : (id) => heldElsewhere(db, id),
    );
    pruneTurns(db);
    for (const hold of skipped) say([`lembas: kept ${hold.sessionId}: it was opened meanwhile in another lembas process (${hold.holder}, pid ${hold.pid})`]);
    for (const failure of failures) say([`lembas: ${failure.message}`]);
    console.log(`deleted ${sessionCount(doomed.length - failures.length - skipped.length)}`);
    if (failures.length > 0) throw new UserError(`${sessionCount(failures.length)} could not be deleted`, 1);
  },
});

/** What a prune would delete, and what it keeps because another lembas has it open: lines for stderr. */
export function pruneListing(doomed: readonly SessionRow[], open: readonly Hold[], age: string): string[] {
  const kept = open.map((h) => `${h.sessionId} (${h.holder}, pid ${h.pid})`).join(", ");
  const keptLine = `kept, open in another lembas process (--include-open deletes them too): ${kept}`;
  if (doomed.length === 0) return [`lembas: nothing to delete: no session untouched for ${age} or more${open.length > 0 ? " but those open elsewhere" : ""}`, ...(open.length > 0 ? [keptLine] : [])];
  const listed = table(SESSION_HEADER, doomed.map(sessionCells)).map((line) => `  ${line}`);
  return [`${sessionCount(doomed.length)} untouched for ${age} or more, to be deleted:`, ...listed, ...(open.length > 0 ? [keptLine] : [])];
}

/** The live holds of those of `sessions` another process has open. */
function holdsOf(sessions: readonly SessionRow[], hold: (id: string) => Hold | null): Hold[] {
  return sessions.map((s) => hold(s.id)).filter((h): h is Hold => h !== null);
}

async function confirmed(question: string): Promise<boolean> {
  const answer = (await askLine(question, new AbortController().signal)).trim().toLowerCase();
  return answer === "y" || answer === "yes";
}

function say(lines: readonly string[]): void {
  if (lines.length > 0) process.stderr.write(`${lines.join("\n")}\n`);
}

type Failure = { id: string; message: string };

/**
 * Deletes from a shell, each wherever it is held (through the running service, which tells the
 * web at once; else here, kept as a delete for the next link). One that cannot be deleted does
 * not stop the rest: it is returned, said. One `keep` names a holder of is not deleted: skipped.
 */
export async function deleteSessions(
  ctx: ReturnType<typeof createContext>,
  ids: readonly string[],
  keep: (id: string) => Hold | null = () => null,
): Promise<{ failures: Failure[]; skipped: Hold[] }> {
  const db = ctx.db();
  const { engine } = createEngine(ctx, "terminal");
  const failures: Failure[] = [];
  const skipped: Hold[] = [];
  for (const id of ids) {
    const held = keep(id);
    if (held) {
      skipped.push(held);
      continue;
    }
    try {
      const answer = await deleteAnywhere({ engine, db, socketPath: ctx.paths.socketFile }, id);
      if ("refused" in answer) failures.push({ id, message: answer.refused });
    } catch (error) {
      failures.push({ id, message: `session ${id} could not be deleted: ${errorMessage(error)}` });
    }
  }
  return { failures, skipped };
}

/** "30d", "12h", "90m", "45s" → milliseconds. */
export function parseAge(text: string): number {
  const match = /^(\d+)\s*([dhms])$/.exec(text.trim());
  if (!match?.[1] || !match[2]) throw new UserError(`--older-than ${text}: say an age like 30d, 12h or 90m`, 2);
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 }[match[2] as "d" | "h" | "m" | "s"];
  return Number(match[1]) * unit;
}
