/**
 * Where an editor's sessions are (issue 15, item 7): an editor's `serve --stdio` hands its sessions to the service, so
 * they are held by the service's own pid; the editor's connection still counts as their holder. A
 * link may not open, prompt or delete a session an editor has open (inside the remote roots too),
 * status says it is held (not "here" for the web), and a delete asked of the device, or a terminal's
 * `lembas -r` of it, is refused.
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { getSession } from "../../src/store/sessions.ts";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { type Device, startDevice } from "../support/device.ts";
import type { Link } from "../support/instance.ts";
import { step } from "../support/engine.ts";
import { rpcError } from "../support/rpc.ts";
import { runLembas } from "../support/run.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

let d: Device | null = null;
let a: StdioAgent | null = null;
let screen: Screen | null = null;
afterEach(async () => {
  await screen?.close();
  screen = null;
  await a?.close();
  a = null;
  await d?.close();
  d = null;
});

/** A device's service with a link up, and an editor's serve --stdio that made a session in the device's project (inside the roots). */
async function editorSession(): Promise<{ d: Device; a: StdioAgent; link: Link; sessionId: string }> {
  d = await startDevice();
  const link = await d.serve();
  a = await startStdioAgent({ device: d, model: d.model });
  await a.agent.request("initialize", initializeParams);
  const { sessionId } = await a.agent.request("session/new", { cwd: a.project, mcpServers: [] });
  return { d, a, link, sessionId };
}

const exists = (device: Device, sessionId: string) => {
  const db = openDb(join(device.box.stateDir, "lembas.db"));
  try {
    return getSession(db, sessionId) !== null;
  } finally {
    db.close();
  }
};

test("a link cannot take an editor's session: prompt, title and delete are refused with a sentence, status says held, and the editor keeps it", async () => {
  const { d, a, link, sessionId } = await editorSession();
  expect(d.log()).toContain("an editor's serve --stdio connected");

  const status = (await link.request("_lembas/session/status", { sessionId })) as { held: string; exists: boolean };
  expect(status).toMatchObject({ exists: true, held: "terminal" });

  const prompt = await rpcError(link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "mine now" }] }));
  expect(prompt.code).toBe(-32602);
  expect(prompt.message).toContain(`session ${sessionId} is open in an editor on this device`);
  const title = await rpcError(link.request("_lembas/session/title", { sessionId, title: "taken" }));
  expect(title.message).toContain("open in an editor on this device");
  const deleted = await rpcError(link.request("_lembas/session/delete", { sessionId }));
  expect(deleted.code).toBe(-32602);
  expect(deleted.message).toContain("open in an editor on this device");
  expect(exists(d, sessionId)).toBe(true);

  // The editor still has it: its prompt runs and its events reach it, not the link.
  d.model.push(step({ text: "still the editor's" }));
  const result = await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  expect(result.stopReason).toBe("end_turn");
  const text = a.updates
    .filter((u) => u.update.sessionUpdate === "agent_message_chunk")
    .map((u) => (u.update as { content: { text: string } }).content.text)
    .join("");
  expect(text).toBe("still the editor's");
});

test("a delete asked of the device (lembas sessions delete) of an editor's session is refused in one line; once the editor let go, it goes", async () => {
  const { d, sessionId } = await editorSession();
  const refused = await runLembas(d.box, ["sessions", "delete", sessionId]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`session ${sessionId} is open in an editor on this device`);
  expect(exists(d, sessionId)).toBe(true);

  await a?.close();
  a = null;
  const deadline = Date.now() + 10_000;
  let last = await runLembas(d.box, ["sessions", "delete", sessionId]);
  while (last.code !== 0 && Date.now() < deadline) {
    await Bun.sleep(200);
    last = await runLembas(d.box, ["sessions", "delete", sessionId]);
  }
  expect(last.code).toBe(0);
  expect(exists(d, sessionId)).toBe(false);
});

test("status of a session the service holds for a link says here, and of one not there, none", async () => {
  d = await startDevice();
  const link = await d.serve();
  const { sessionId } = (await link.request("session/new", { cwd: d.project, mcpServers: [] })) as { sessionId: string };
  expect(await link.request("_lembas/session/status", { sessionId })).toMatchObject({ exists: true, held: "here", busy: false, queued: [] });
  expect(await link.request("_lembas/session/status", { sessionId: "ses_nope" })).toMatchObject({ exists: false, held: "none" });
});

test.skipIf(!HAVE_TMUX)("lembas -r of an editor's session is refused in one line, and the editor keeps it", async () => {
  const { d, a, sessionId } = await editorSession();
  screen = await openScreen(d.box, { cwd: d.project, args: ["-r", sessionId] });
  await screen.waitFor("open in an editor on this device", 15_000);
  expect(await screen.exited(10_000)).toBe(1);
  d.model.push(step({ text: "the editor's still" }));
  expect((await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })).stopReason).toBe("end_turn");
}, 40_000);
