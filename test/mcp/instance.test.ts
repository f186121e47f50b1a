import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { instanceServer, instanceServers, probeInstanceMcp } from "../../src/mcp/from-instance.ts";
import { type Db, openDb } from "../../src/store/db.ts";
import { getInstanceMcp } from "../../src/store/instance-mcp.ts";
import { type Login, saveLogin } from "../../src/store/logins.ts";
import { type Instance, startInstance } from "../support/instance.ts";

const TOKEN = "dev-token-s3cret";

/** A minimal streamable-HTTP MCP endpoint: initialize answered with a session id, DELETE ends it; what it was asked is kept. */
function minimalMcp() {
  const seen: { method: string; auth: string | null; body: unknown }[] = [];
  const handler = async (request: Request): Promise<Response> => {
    const body: unknown = request.method === "POST" ? await request.json() : null;
    seen.push({ method: request.method, auth: request.headers.get("authorization"), body });
    if (request.method === "DELETE") return new Response(null, { status: 200 });
    if (request.method !== "POST") return new Response(null, { status: 405 });
    const id = typeof body === "object" && body !== null && "id" in body ? body.id : null;
    const result = { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "instance-mcp", version: "1" } };
    return Response.json({ jsonrpc: "2.0", id, result }, { headers: { "mcp-session-id": "ses-1" } });
  };
  return { handler, seen };
}

let dir: string;
let db: Db;
let instance: Instance | null = null;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lembas-mcp-instance-"));
  db = openDb(join(dir, "lembas.db"));
});
afterEach(async () => {
  await instance?.close();
  instance = null;
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const login = (url: string, token = TOKEN): Login => saveLogin(db, { name: "example", url, token, protocols: [1, 2] });

describe("a login's instance /mcp", () => {
  test("is a streamable HTTP spec at <url>/mcp with the device token in a secret header", () => {
    expect(instanceServer({ name: "example", url: "https://lembas.example", token: TOKEN })).toEqual({
      name: "example",
      source: "instance",
      transport: { type: "http", url: "https://lembas.example/mcp", headers: { Authorization: `Bearer ${TOKEN}` } },
      secretHeaders: ["Authorization"],
    });
  });

  test("the simulated instance's /mcp refuses a wrong token before its handler sees the request", async () => {
    const mcp = minimalMcp();
    instance = await startInstance({ token: TOKEN, mcp: mcp.handler });
    const wrong = await fetch(`${instance.url}/mcp`, { method: "POST", headers: { authorization: "Bearer nope", "content-type": "application/json" }, body: "{}" });
    expect(wrong.status).toBe(401);
    const none = await fetch(`${instance.url}/mcp`, { method: "POST", body: "{}" });
    expect(none.status).toBe(401);
    expect(mcp.seen).toEqual([]);
  });

  test("a probe finds an instance that serves it, closes the session it made, and the answer is kept", async () => {
    const mcp = minimalMcp();
    instance = await startInstance({ token: TOKEN, mcp: mcp.handler });
    expect(await probeInstanceMcp(instance.url, TOKEN)).toEqual({ found: "serves" });
    expect(mcp.seen.map((s) => [s.method, s.auth])).toEqual([
      ["POST", `Bearer ${TOKEN}`],
      ["DELETE", `Bearer ${TOKEN}`],
    ]);
    expect(mcp.seen[0]?.body).toMatchObject({ jsonrpc: "2.0", method: "initialize" });
  });

  test("a login whose instance serves /mcp gets its server, probed once and then remembered", async () => {
    const mcp = minimalMcp();
    instance = await startInstance({ token: TOKEN, mcp: mcp.handler });
    const logins = [login(instance.url)];
    const first = await instanceServers(db, logins);
    expect(first).toEqual({ specs: [instanceServer(logins[0] as Login)], problems: [] });
    expect(getInstanceMcp(db, instance.url)?.serves).toBe(true);
    const asked = mcp.seen.length;
    expect((await instanceServers(db, logins)).specs).toHaveLength(1);
    expect(mcp.seen.length).toBe(asked);
    // A day later, or when asked to, it is probed again.
    await instanceServers(db, logins, { now: Date.now() + 25 * 60 * 60 * 1000 });
    expect(mcp.seen.length).toBeGreaterThan(asked);
  });

  test("an instance without /mcp gets no server, and that is remembered too", async () => {
    instance = await startInstance({ token: TOKEN });
    const logins = [login(instance.url)];
    expect(await instanceServers(db, logins)).toEqual({ specs: [], problems: [] });
    expect(getInstanceMcp(db, instance.url)).toMatchObject({ serves: false });
  });

  test("a refused token cannot tell: a problem that says to log in again, nothing remembered, the token not in it", async () => {
    const mcp = minimalMcp();
    instance = await startInstance({ token: TOKEN, mcp: mcp.handler });
    const made = await instanceServers(db, [login(instance.url, "old-token-xyz")]);
    expect(made.specs).toEqual([]);
    expect(made.problems).toEqual([{ name: "example", problem: `${instance.url}/mcp answered 401 (the device token was refused: lembas login again)` }]);
    expect(JSON.stringify(made.problems)).not.toContain("old-token-xyz");
    expect(getInstanceMcp(db, instance.url)).toBeNull();
  });
});
