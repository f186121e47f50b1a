import { cleanTitle } from "../../engine/side-calls.ts";
import { errorMessage } from "../../errors.ts";
import { heldElsewhere, heldElsewhereSentence } from "../../store/placement.ts";
import { userMessageCounts } from "../../store/messages.ts";
import { deleteAnywhere } from "../../app/device-delete.ts";
import type { DeleteAnswer } from "../../app/ipc-protocol.ts";
import { getSession, type SessionRow, updateSession } from "../../store/sessions.ts";
import type { CommandHost } from "../command-host.ts";
import { ago, say } from "./say.ts";

/**
 * The sessions' commands: /resume, /sessions (a list of this project's or every session, and what
 * to do with the one picked), /rename and /delete. Moving away from a session where nothing was
 * sent discards it (the runtime does).
 */
type Scope = "project" | "all";
type Action = "resume" | "rename" | "delete";
const ACTIONS: readonly Action[] = ["resume", "rename", "delete"];

export async function resume(app: CommandHost, args: string): Promise<void> {
  const id = args || (await pickSession(app, "project", false));
  if (id && id !== SCOPE_TOGGLE) await app.switchTo({ kind: "resume", id });
}

/** /sessions, or /sessions all; /sessions resume|rename|delete ID [TITLE] skips the pickers. */
export async function sessions(app: CommandHost, args: string): Promise<void> {
  const [word = "", id = "", ...rest] = args.split(/\s+/).filter(Boolean);
  if (ACTIONS.includes(word as Action)) {
    if (!id) return say(app, `/sessions ${word} needs a session's id`, "warn");
    return act(app, word as Action, id, rest.join(" "));
  }
  if (word && word !== "all") return say(app, "/sessions takes all, or resume|rename|delete ID", "warn");
  let scope: Scope = word === "all" ? "all" : "project";
  for (;;) {
    const picked = await pickSession(app, scope, true);
    if (picked === null) return;
    if (picked === SCOPE_TOGGLE) {
      scope = scope === "all" ? "project" : "all";
      continue;
    }
    const action = await pickAction(app, picked);
    if (action) return act(app, action, picked, "");
  }
}

export function rename(app: CommandHost, args: string): void {
  if (!args) {
    app.compose("/rename ");
    return say(app, "/rename takes the new title: type it and Enter");
  }
  const title = app.runtime.session.setTitle(args);
  if (!title) say(app, "that title is empty once cleaned: say it in words", "warn");
  else say(app, `renamed: ${title}`);
}

/** /delete: this session, after a yes, then a new one. */
export async function deleteCurrent(app: CommandHost): Promise<void> {
  const session = app.runtime.session;
  const turns = session.messages().filter((m) => m.role === "user").length;
  if (turns > 0) {
    const sure = await app.pick(`Delete this session (${count(turns)})?`, [
      { value: false, label: "Keep it" },
      { value: true, label: "Delete it", description: `${session.title || "(untitled)"} · ${session.id}` },
    ]);
    if (!sure) return;
  }
  await deleteSession(app, session.id);
}

async function act(app: CommandHost, action: Action, id: string, text: string): Promise<void> {
  const row = getSession(app.runtime.ctx.db(), id);
  if (!row) return say(app, `there is no session ${id} (/sessions lists them)`, "warn");
  if (action === "resume") return app.switchTo({ kind: "resume", id });
  if (action === "delete") return deleteSession(app, id);
  if (!text) return app.compose(`/sessions rename ${id} `);
  renameOther(app, row, text);
}

function renameOther(app: CommandHost, row: SessionRow, text: string): void {
  const runtime = app.runtime;
  if (runtime.hasSession && runtime.session.id === row.id) return rename(app, text);
  const title = cleanTitle(text);
  if (!title) return say(app, "that title is empty once cleaned: say it in words", "warn");
  const busy = busyElsewhere(app, row.id);
  if (busy) return say(app, `${busy}: rename it there`, "warn");
  updateSession(runtime.ctx.db(), row.id, { title });
  say(app, `renamed ${row.id}: ${title}`);
}

/**
 * Deletes a session wherever it is held (the current one: a new one opens first; one the service
 * or another terminal holds: through the service); the web UI is told now, or at its next link.
 */
async function deleteSession(app: CommandHost, id: string): Promise<void> {
  const runtime = app.runtime;
  let answer: DeleteAnswer;
  try {
    const shown = runtime.hasSession && runtime.session.id === id;
    const { engine, ctx } = runtime;
    answer = shown ? { deleted: await runtime.deleteShown() } : await deleteAnywhere({ engine, db: ctx.db(), socketPath: ctx.paths.socketFile }, id);
  } catch (error) {
    return say(app, `session ${id} could not be deleted: ${errorMessage(error)}`, "error");
  }
  if ("refused" in answer) return say(app, answer.refused, "warn");
  say(app, `deleted ${id}`);
}

function busyElsewhere(app: CommandHost, id: string): string | null {
  const hold = heldElsewhere(app.runtime.ctx.db(), id);
  return hold ? heldElsewhereSentence(hold) : null;
}

const SCOPE_TOGGLE = "\u0000scope";

/** A session to act on, newest first, without the one shown; null when the list is closed. */
async function pickSession(app: CommandHost, scope: Scope, toggle: boolean): Promise<string | null> {
  const runtime = app.runtime;
  const here = runtime.hasSession ? runtime.session.id : null;
  const rows = runtime.sessions(scope).filter((row) => row.id !== here);
  if (rows.length === 0 && (!toggle || scope === "all")) {
    say(app, scope === "all" ? "there is no other session on this device" : "there is no other session in this project");
    return null;
  }
  const turns = userMessageCounts(runtime.ctx.db(), rows.map((r) => r.id));
  const items = rows.map((row) => ({
    value: row.id,
    label: cleanTitle(row.title) || "(untitled)",
    description: [ago(row.updatedAt), count(turns.get(row.id) ?? 0), row.id, ...(scope === "all" ? [row.cwd] : [])].join(" · "),
  }));
  const other = scope === "all" ? "this project's sessions only" : "every session on this device";
  const title = scope === "all" ? "Sessions on this device" : "Sessions of this project";
  return app.pick(title, toggle ? [...items, { value: SCOPE_TOGGLE, label: `… ${other}` }] : items);
}

async function pickAction(app: CommandHost, id: string): Promise<Action | null> {
  return app.pick(`Session ${id}`, [
    { value: "resume" as const, label: "Resume", description: "open it here" },
    { value: "rename" as const, label: "Rename", description: "type its new title" },
    { value: "delete" as const, label: "Delete", description: "its messages and attachments, for good" },
  ]);
}

function count(turns: number): string {
  return `${turns} turn${turns === 1 ? "" : "s"}`;
}
