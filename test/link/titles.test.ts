import { beforeEach, expect, test } from "bun:test";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { getSession } from "../../src/store/sessions.ts";
import { type Device, newSession, sharedServiceEach } from "../support/device.ts";
import { isTitle, step } from "../support/engine.ts";
import type { Link } from "../support/instance.ts";
import { rpcError } from "../support/rpc.ts";
import { runLembas } from "../support/run.ts";

/** The file's one service (with the test's own model and project), and a session of the test's own on it. */
let d: Device;
let link: Link;
let sessionId: string;
let project: string;
sharedServiceEach((t) => ({ d, link, project } = t));
beforeEach(async () => {
  sessionId = await newSession(link, project);
});

const HOSTILE = "\x1b]0;pwned\x07";
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;

const stored = () => {
  const db = openDb(join(d.box.stateDir, "lembas.db"));
  const title = getSession(db, sessionId)?.title;
  db.close();
  return title;
};

test("a title from the link is stored and listed without terminal control", async () => {
  expect(await link.request("_lembas/session/title", { sessionId, title: `${HOSTILE}Fix \x1b[31mthe\x1b[0m bug\x07` })).toEqual({ title: "Fix the bug" });
  expect(stored()).toBe("Fix the bug");
  const list = await runLembas(d.box, ["sessions", "list"]);
  expect(list.stdout).toContain("Fix the bug");
  expect(list.stdout).not.toMatch(CONTROL);
  const empty = await rpcError(link.request("_lembas/session/title", { sessionId, title: HOSTILE }));
  expect(empty).toMatchObject({ code: -32602, message: expect.stringContaining("a title cannot be empty") });
});

test("a title from the model's title call, and the provisional one from the first line, are stored without terminal control", async () => {
  d.model.push({ match: isTitle, text: `${HOSTILE}Named by model` }, step({ text: "ok" }));
  const from = link.notifications.length;
  await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `${HOSTILE}hello\x1b[2J there` }] }, 20_000);
  const titles = () =>
    link.notifications
      .slice(from)
      .map((n) => (n.params as { event?: { type: string; title?: string } }).event)
      .filter((e) => e?.type === "title")
      .map((e) => e?.title);
  await link.waitForNotification((n) => JSON.stringify(n.params).includes("Named by model"), 10_000, from);
  expect(titles()).toEqual(["hello there", "Named by model"]);
  expect(stored()).toBe("Named by model");
});

test("sessions list prints titles stored with control characters as text", async () => {
  const db = openDb(join(d.box.stateDir, "lembas.db"));
  db.query("UPDATE sessions SET title = ? WHERE id = ?").run(`${HOSTILE}old raw title\x1b[5m`, sessionId);
  db.close();
  const list = await runLembas(d.box, ["sessions", "list"]);
  expect(list.stdout).toContain("old raw title");
  expect(list.stdout).not.toMatch(CONTROL);
});
