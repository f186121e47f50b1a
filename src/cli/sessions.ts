import { defineCommand } from "./command.ts";
import { withoutControls } from "../controls.ts";
import { cleanTitle } from "../engine/side-calls.ts";
import { UserError } from "../errors.ts";
import { parseStored, type StoredMessage } from "../engine/records.ts";
import { historyTurns } from "../transcript/history-turns.ts";
import { toMarkdown, toText } from "../transcript/markdown.ts";
import { listMessages } from "../store/messages.ts";
import { getSession, listSessions } from "../store/sessions.ts";
import { createContext } from "../app/context.ts";
import { SESSION_HEADER, sessionCells, table } from "./session-rows.ts";
import { deleteSessions, prune } from "./sessions-prune.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

const list = defineCommand({
  meta: { name: "list", description: "The sessions on this device, newest first", examples: ["lembas sessions list"] },
  run() {
    const sessions = listSessions(createContext().db(), { limit: 500 });
    if (sessions.length === 0) return void console.error("lembas: no sessions on this device yet");
    for (const line of table(SESSION_HEADER, sessions.map(sessionCells))) console.log(line);
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
    const [failure] = (await deleteSessions(ctx, [args.id])).failures;
    if (failure) throw new UserError(failure.message, 1);
    console.log(`deleted ${args.id}`);
  },
});

export default defineCommand({
  meta: { name: "sessions", description: DESCRIPTIONS.sessions, examples: ["lembas sessions list", "lembas sessions prune --older-than 7d"] },
  subCommands: { list, show, delete: del, prune },
});

