import { afterEach, beforeEach, expect, test } from "bun:test";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { pendingDeletes } from "../../src/store/deletes.ts";
import { appendMessage } from "../../src/store/messages.ts";
import { saveLogin } from "../../src/store/logins.ts";
import { insertSession, listSessions } from "../../src/store/sessions.ts";
import { openPty, type Pty } from "../../src/terminal/pty.ts";
import { screenOf } from "../support/pty-screen.ts";
import { LEMBAS, projectSandbox, runLembas, type Sandbox } from "../support/run.ts";

let box: Sandbox & { project: string };
beforeEach(() => {
  box = projectSandbox("http://127.0.0.1:9/v1");
});
let ptys: Pty[] = [];
afterEach(() => {
  for (const pty of ptys.splice(0)) pty.close();
  box.cleanup();
});

/** `lembas sessions prune --older-than 30d` in a real terminal: what it prints, and a way to answer. */
function pruneAtTerminal() {
  const pty = openPty({ command: [...LEMBAS, "sessions", "prune", "--older-than", "30d"], cwd: box.project, env: box.env, cols: 200, rows: 50 });
  ptys.push(pty);
  return screenOf(pty);
}

const db = () => openDb(join(box.stateDir, "lembas.db"));

function seed(): void {
  const store = db();
  saveLogin(store, { name: "inst", url: "https://inst.example", token: "t", protocols: [1, 2] });
  for (const [id, title] of [["ses_old", "old work"], ["ses_new", "new work"]] as const) {
    insertSession(store, { id, root: box.project, cwd: box.project, mode: "edit", model: null, effort: "medium", origin: "terminal", title });
  }
  store.query("UPDATE sessions SET updated_at = ? WHERE id = 'ses_old'").run(Date.now() - 40 * 86_400_000);
  store.close();
}

test("sessions list shows each session, newest first, under a header, in aligned columns", async () => {
  seed();
  const store = db();
  insertSession(store, { id: "ses_wide", root: box.project, cwd: join(box.project, "sub"), mode: "edit", model: null, effort: "medium", origin: "terminal", title: "a longer title: 漢字" });
  store.query("UPDATE sessions SET updated_at = ? WHERE id = 'ses_wide'").run(Date.now() - 86_400_000);
  store.close();
  const result = await runLembas(box, ["sessions", "list"]);
  expect(result.code).toBe(0);
  const lines = result.stdout.trimEnd().split("\n");
  expect(lines.map((l) => l.split(/\s{2,}/)[0])).toEqual(["ID", "ses_new", "ses_wide", "ses_old"]);
  expect(lines[1]).toContain("new work");
  // Every column starts where its header does (in terminal columns: 漢字 is four wide).
  const at = (line: string, cell: string) => Bun.stringWidth(line.slice(0, line.indexOf(cell)));
  for (const [header, cells] of [["TITLE", ["new work", "a longer title: 漢字", "old work"]], ["DIRECTORY", [box.project, join(box.project, "sub"), box.project]]] as const) {
    cells.forEach((cell, i) => expect(at(lines[i + 1] ?? "", cell)).toBe(at(lines[0] ?? "", header)));
  }
});

test("sessions list with no sessions prints nothing on stdout and says so on stderr", async () => {
  const result = await runLembas(box, ["sessions", "list"]);
  expect(result).toMatchObject({ code: 0, stdout: "", stderr: "lembas: no sessions on this device yet\n" });
});

function seedTranscript(): void {
  seed();
  const store = db();
  appendMessage(store, "ses_new", "user", { text: "expanded body of /review", display: "/review the parser" }, "t1");
  appendMessage(store, "ses_new", "assistant", { text: "I'll look.", reasoning: "", toolCalls: [{ id: "c1", name: "bash", arguments: JSON.stringify({ command: "bun test" }) }] }, "t1");
  appendMessage(store, "ses_new", "tool", { callId: "c1", name: "bash", output: "1 fail", isError: true }, "t1");
  appendMessage(store, "ses_new", "assistant", { text: "One test fails.\x1b]0;owned\x07", reasoning: "", toolCalls: [] }, "t1");
  store.close();
}

test("sessions show prints the transcript as text: the person's words, each tool call a line, the answer", async () => {
  seedTranscript();
  const result = await runLembas(box, ["sessions", "show", "ses_new"]);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe(
    [`ses_new  new work  in ${box.project}`, "", "── you", "/review the parser", "", "── lembas", "› Run bun test (failed)", "I'll look.\n\nOne test fails.", ""].join("\n"),
  );
});

test("sessions show --format markdown", async () => {
  seedTranscript();
  const result = await runLembas(box, ["sessions", "show", "ses_new", "--format", "markdown"]);
  expect(result.code).toBe(0);
  expect(result.stdout).toStartWith(`# new work\n\nSession ses_new in ${box.project}.\n\n## You\n\n/review the parser\n\n## lembas\n\n- \`Run bun test\` (failed)\n`);
  expect(result.stdout).not.toContain("\x1b");
});

test("sessions show: bad input", async () => {
  seed();
  const missing = await runLembas(box, ["sessions", "show", "ses_nope"]);
  expect(missing).toMatchObject({ code: 2, stderr: "lembas: there is no session ses_nope (lembas sessions list shows them)\n" });
  const format = await runLembas(box, ["sessions", "show", "ses_new", "--format", "html"]);
  expect(format).toMatchObject({ code: 2, stderr: "lembas: --format must be text or markdown, not html\n" });
});

test("sessions prune --yes says what it deletes, deletes what is older than asked and keeps the deletes for the web UI", async () => {
  seed();
  const result = await runLembas(box, ["sessions", "prune", "--older-than", "30d", "--yes"]);
  expect(result).toMatchObject({ code: 0, stdout: "deleted 1 session\n" });
  expect(result.stderr).toStartWith("1 session untouched for 30d or more, to be deleted:\n  ID ");
  expect(result.stderr).toContain("ses_old");
  expect(result.stderr).toContain("old work");
  expect(result.stderr).not.toContain("ses_new");
  const store = db();
  expect(listSessions(store).map((s) => s.id)).toEqual(["ses_new"]);
  expect(pendingDeletes(store, "inst")).toEqual(["ses_old"]);
  store.close();
});

test("bad input: an age that is no age, a session that is not there", async () => {
  const age = await runLembas(box, ["sessions", "prune", "--older-than", "soon"]);
  expect(age.code).toBe(2);
  expect(age.stderr.trim()).toBe("lembas: --older-than soon: say an age like 30d, 12h or 90m");
  const missing = await runLembas(box, ["sessions", "delete", "ses_nope"]);
  expect(missing.code).toBe(2);
  expect(missing.stderr.trim()).toBe("lembas: there is no session ses_nope");
});

test("sessions prune with no terminal and no --yes deletes nothing and says why in one line", async () => {
  seed();
  const result = await runLembas(box, ["sessions", "prune", "--older-than", "30d"]);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr).toBe("lembas: sessions prune would delete 1 session and asks first: run it at a terminal, or with --yes\n");
  const store = db();
  expect(listSessions(store).map((s) => s.id).sort()).toEqual(["ses_new", "ses_old"]);
  store.close();
  // Nothing to delete is no question: said, and done.
  const none = await runLembas(box, ["sessions", "prune", "--older-than", "90d"]);
  expect(none).toMatchObject({ code: 0, stdout: "", stderr: "lembas: nothing to delete: no session untouched for 90d or more\n" });
});

test("sessions prune at a terminal lists what it would delete and deletes only after a yes", async () => {
  seed();
  const no = pruneAtTerminal();
  await no.waitFor("Delete this session? [y/N] ");
  expect(no.screen()).toContain("1 session untouched for 30d or more, to be deleted:");
  expect(no.screen()).toContain("ses_old");
  no.type("n\r");
  expect(await no.exited).toBe(0);
  expect(no.screen()).toContain("lembas: nothing was deleted");
  let store = db();
  expect(listSessions(store).map((s) => s.id).sort()).toEqual(["ses_new", "ses_old"]);
  store.close();

  const yes = pruneAtTerminal();
  await yes.waitFor("Delete this session? [y/N] ");
  yes.type("y\r");
  expect(await yes.exited).toBe(0);
  expect(yes.screen()).toContain("deleted 1 session");
  store = db();
  expect(listSessions(store).map((s) => s.id)).toEqual(["ses_new"]);
  store.close();
});

test("sessions prune keeps a session another live lembas has open, and names it; --include-open does not", async () => {
  seed();
  const store = db();
  insertSession(store, { id: "ses_held", root: box.project, cwd: box.project, mode: "edit", model: null, effort: "medium", origin: "terminal", title: "held" });
  store.query("UPDATE sessions SET updated_at = ? WHERE id = 'ses_held'").run(Date.now() - 40 * 86_400_000);
  // Held by a live process (this test's): another lembas has it open.
  store.query("INSERT INTO holds (session_id, holder, pid, since, heartbeat) VALUES ('ses_held', 'terminal', ?, ?, ?)").run(process.pid, Date.now(), Date.now());
  store.close();
  const result = await runLembas(box, ["sessions", "prune", "--older-than", "30d", "--yes"]);
  expect(result).toMatchObject({ code: 0, stdout: "deleted 1 session\n" });
  expect(result.stderr).toContain(`kept, open in another lembas process (--include-open deletes them too): ses_held (terminal, pid ${process.pid})`);
  const after = db();
  expect(listSessions(after).map((s) => s.id).sort()).toEqual(["ses_held", "ses_new"]);
  after.close();
  // Only held ones left: nothing to delete, and they are named.
  const again = await runLembas(box, ["sessions", "prune", "--older-than", "30d"]);
  expect(again.code).toBe(0);
  expect(again.stderr).toContain("nothing to delete");
  expect(again.stderr).toContain("ses_held (terminal");
});

test("sessions prune --include-open goes on past a session it cannot delete, says it in one line, and exits 1", async () => {
  seed();
  const store = db();
  insertSession(store, { id: "ses_held", root: box.project, cwd: box.project, mode: "edit", model: null, effort: "medium", origin: "terminal", title: "held" });
  insertSession(store, { id: "ses_zold", root: box.project, cwd: box.project, mode: "edit", model: null, effort: "medium", origin: "terminal", title: "old too" });
  store.query("UPDATE sessions SET updated_at = ? WHERE id IN ('ses_held', 'ses_zold')").run(Date.now() - 40 * 86_400_000);
  // Held by a live process (this test's): another lembas has it open.
  store.query("INSERT INTO holds (session_id, holder, pid, since, heartbeat) VALUES ('ses_held', 'terminal', ?, ?, ?)").run(process.pid, Date.now(), Date.now());
  store.close();
  const result = await runLembas(box, ["sessions", "prune", "--older-than", "30d", "--yes", "--include-open"]);
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("deleted 2 sessions\n");
  expect(result.stderr.trim().split("\n").filter((l) => l.startsWith("lembas:"))).toEqual([
    `lembas: session ses_held is open in another lembas process (terminal, pid ${process.pid}) and no service runs to reach it: delete it there, or quit it there and delete again`,
    "lembas: 1 session could not be deleted",
  ]);
  const after = db();
  expect(listSessions(after).map((s) => s.id).sort()).toEqual(["ses_held", "ses_new"]);
  expect(pendingDeletes(after, "inst").sort()).toEqual(["ses_old", "ses_zold"]);
  after.close();
});
