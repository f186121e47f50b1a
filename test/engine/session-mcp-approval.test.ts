import { afterAll, afterEach, expect, test } from "bun:test";
import { SessionMcp } from "../../src/engine/session-mcp.ts";
import type { PendingApproval } from "../../src/mcp/wiring-types.ts";
import type { Interaction, PermissionDecision } from "../../src/engine/interaction.ts";
import { McpHub } from "../../src/mcp/hub.ts";
import { processesTagged, stdioServer } from "../mcp/servers.ts";

const sessions: SessionMcp[] = [];
const tags: string[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.stop()));
});
afterAll(() => {
  for (const tag of tags) expect(processesTagged(tag)).toEqual([]);
});

/** Whoever answers for the person: `answer` for each question, or none (the question waits for the turn's cancel, as a front end's does). */
function person(answer: PermissionDecision | null): Interaction & { asked: number } {
  const it = {
    asked: 0,
    async permission(_request: unknown, signal: AbortSignal): Promise<PermissionDecision> {
      it.asked++;
      if (answer) return answer;
      return new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("cancelled")), { once: true }));
    },
    question: async () => ({ outcome: "nobody" as const }),
    plan: async () => ({ outcome: "nobody" as const }),
  };
  return it;
}

test("a turn cancelled while the project's .mcp.json question is open is no answer: no refusal is said, and the next turn asks again", async () => {
  const tag = crypto.randomUUID();
  tags.push(tag);
  let approvals = 0;
  const pending: PendingApproval = {
    path: "/project/.mcp.json",
    servers: [{ name: "proj", what: "bun mcp-server.ts", env: [], headers: [], reads: [] }],
    approve: () => {
      approvals++;
      return { specs: [stdioServer("proj", tag)], problems: [] };
    },
    allowForSession: () => ({ specs: [stdioServer("proj", tag)], problems: [] }),
  };
  const notices: string[] = [];
  const hubOptions = { env: { ...process.env } as Record<string, string>, cwd: process.cwd(), onNotice: (m: string) => void notices.push(m) };
  const mcp = new SessionMcp(Promise.resolve({ specs: [], problems: [], pending }), {
    sessionId: "s1",
    wiring: { gather: () => null, hub: async (o) => new McpHub({ env: o.env, cwd: o.cwd, onNotice: o.onNotice }) },
    hubOptions,
    mode: () => "edit",
  });
  sessions.push(mcp);

  const silent = person(null);
  const turn = new AbortController();
  const first = mcp.tools(silent, turn.signal, "edit");
  while (silent.asked === 0) await Bun.sleep(5);
  turn.abort();
  expect(await first).toEqual([]);
  await Bun.sleep(20);
  expect(notices.filter((n) => n.includes("not approved"))).toEqual([]);

  const yes = person({ outcome: "once" });
  const names = (await mcp.tools(yes, new AbortController().signal, "edit")).map((t) => t.name);
  expect(yes.asked).toBe(1);
  expect(approvals).toBe(1);
  expect(names).toContain("mcp__proj__echo");
});
