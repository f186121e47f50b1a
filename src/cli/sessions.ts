import { defineCommand } from "./command.ts";
import { withoutControls } from "../controls.ts";
import { createEngine } from "./start-engine.ts";
import { cleanTitle } from "../engine/side-calls.ts";
import { errorMessage, UserError } from "../errors.ts";
import { deleteAnywhere } from "../service/device-delete.ts";
import { parseStored, type StoredMessage } from "../engine/records.ts";
import { historyTurns } from "../front/history.ts";
import { toMarkdown, toText } from "../front/transcript.ts";
import { listMessages } from "../store/messages.ts";
import { getSession, listSessions } from "../store/sessions.ts";
import { pruneTurns } from "../store/turns.ts";
import { createContext } from "./context.ts";

const list = defineCommand({
  meta: { name: "list", description: "The sessions on this device, newest first", examples: ["lembas sessions list"] },
  run() {
    const sessions = listSessions(createContext().db(), { limit: 500 });
    if (sessions.length === 0) return void console.error("lembas: no sessions on this device yet");
    const rows = sessions.map((s) => [
      s.id,
      new Date(s.updatedAt).toISOString().slice(0, 16).replace("T", " "),
      // Titles stored before they were cleaned may still carry terminal control: print text only.
      clip(cleanTitle(s.title) || "(untitled)", 48),
      withoutControls(s.cwd),
    ]);
    for (const line of table(["ID", "UPDATED (UTC)", "TITLE", "DIRECTORY"], rows)) console.log(line);
  },
});

const show = defineCommand({
  meta: {
    name: "show",
    description: "Print a session's transcript: what was asked, what was answered, each tool call a line",
    examples: ["lembas sessions show ses_01J…", "lembas sessions show ses_01J… --format markdown > session.md"],
  },
  args: {
    id: { type: "positional", required: true, description: "the session's id (lembas sessions list shows them)" },
    format: { type: "string", default: "text", valueHint: "FORMAT", description: "text | markdown" },
  },
  run({ args }) {
    if (args.format !== "text" && args.format !== "markdown") throw new UserError(`--format must be text or markdown, not ${args.format}`, 2);
    const db = createContext().db();
    const row = getSession(db, args.id);
    if (!row) throw new UserError(`there is no session ${args.id} (lembas sessions list shows them)`, 2);
    const turns = historyTurns(listMessages(db, row.id).map(parseStored).filter((m): m is StoredMessage => m !== null));
    const where = { id: row.id, title: cleanTitle(row.title), cwd: row.cwd, root: row.root };
    // What the model wrote is printed as text: it must not move a terminal's cursor or retitle its window.
    const out = args.format === "markdown" ? toMarkdown(where, turns, { exported: false }) : toText(where, turns);
    process.stdout.write(withoutControls(out));
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
  meta: { name: "sessions", description: "List, show, delete and prune the sessions on this device", examples: ["lembas sessions list", "lembas sessions prune --older-than 7d"] },
  subCommands: { list, show, delete: del, prune },
});

/** Rows under a header, each column as wide as its widest cell (in terminal columns); the last is not padded. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(Bun.stringWidth(h), ...rows.map((r) => Bun.stringWidth(r[i] ?? ""))));
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => (i === cells.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - Bun.stringWidth(cell)))).join("  ");
  return [line(header), ...rows.map(line)];
}

function clip(text: string, most: number): string {
  return text.length > most ? `${text.slice(0, most - 1)}…` : text;
}

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
