import { defineCommand } from "./command.ts";
import { withoutControls } from "../controls.ts";
import { createEngine } from "../engine/create.ts";
import { cleanTitle } from "../engine/side-calls.ts";
import { errorMessage, UserError } from "../errors.ts";
import { deleteAnywhere } from "../service/device-delete.ts";
import { getSession, listSessions } from "../store/sessions.ts";
import { pruneTurns } from "../store/turns.ts";
import { createContext } from "./context.ts";

const list = defineCommand({
  meta: { name: "list", description: "The sessions on this device, newest first", examples: ["lembas sessions list"] },
  run() {
    const sessions = listSessions(createContext().db(), { limit: 500 });
    for (const s of sessions) {
      // Titles stored before they were cleaned may still carry terminal control: print text only.
      const title = cleanTitle(s.title) || "(untitled)";
      console.log(`${s.id}  ${new Date(s.updatedAt).toISOString().slice(0, 16).replace("T", " ")}  ${title}  ${withoutControls(s.cwd)}`);
    }
  },
});

const del = defineCommand({
  meta: { name: "delete", description: "Delete a session (its messages and attachments), wherever it is open; the web UI is told now, or at its next link", examples: ["lembas sessions delete ses_01J…"] },
  args: { id: { type: "positional", required: true, description: "the session's id" } },
  async run({ args }) {
    const ctx = createContext();
    const db = ctx.db();
    if (!getSession(db, args.id)) throw new UserError(`there is no session ${args.id}`, 2);
    const [failure] = await deleteSessions(ctx, [args.id]);
    if (failure) throw new UserError(failure.message, 1);
    console.log(`deleted ${args.id}`);
  },
});

const prune = defineCommand({
  meta: { name: "prune", description: "Delete the sessions untouched for a while (default 30 days)", examples: ["lembas sessions prune --older-than 7d"] },
  args: { "older-than": { type: "string", default: "30d", valueHint: "AGE", description: "an age: 30d, 12h, 90m" } },
  async run({ args }) {
    const ctx = createContext();
    const db = ctx.db();
    const cutoff = Date.now() - parseAge(args["older-than"]);
    const old = listSessions(db, { limit: 100_000 }).filter((s) => s.updatedAt < cutoff);
    const failures = await deleteSessions(ctx, old.map((s) => s.id));
    pruneTurns(db);
    for (const failure of failures) console.error(`lembas: ${failure.message}`);
    console.log(`deleted ${count(old.length - failures.length)}`);
    if (failures.length > 0) throw new UserError(`${count(failures.length)} could not be deleted`, 1);
  },
});

export default defineCommand({
  meta: { name: "sessions", description: "List, delete and prune the sessions on this device", examples: ["lembas sessions list", "lembas sessions prune --older-than 7d"] },
  subCommands: { list, delete: del, prune },
});

function count(n: number): string {
  return `${n} session${n === 1 ? "" : "s"}`;
}

type Failure = { id: string; message: string };

/**
 * Deletes from a shell, each wherever it is held (through the running service, which tells the
 * web at once; else here, kept as a delete for the next link). One that cannot be deleted does
 * not stop the rest: it is returned, said.
 */
async function deleteSessions(ctx: ReturnType<typeof createContext>, ids: string[]): Promise<Failure[]> {
  const db = ctx.db();
  const { engine } = createEngine(ctx, "terminal");
  const failures: Failure[] = [];
  for (const id of ids) {
    try {
      const answer = await deleteAnywhere({ engine, db, socketPath: ctx.paths.socketFile }, id);
      if ("refused" in answer) failures.push({ id, message: answer.refused });
    } catch (error) {
      failures.push({ id, message: `session ${id} could not be deleted: ${errorMessage(error)}` });
    }
  }
  return failures;
}

/** "30d", "12h", "90m", "45s" → milliseconds. */
export function parseAge(text: string): number {
  const match = /^(\d+)\s*([dhms])$/.exec(text.trim());
  if (!match?.[1] || !match[2]) throw new UserError(`--older-than ${text}: say an age like 30d, 12h or 90m`, 2);
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 }[match[2] as "d" | "h" | "m" | "s"];
  return Number(match[1]) * unit;
}
