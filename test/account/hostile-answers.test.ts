import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { instanceSettings } from "../../src/account/personal-settings.ts";
import { fetchPersonalization } from "../../src/account/personalization.ts";
import { writePersonal } from "../../src/account/personal-write.ts";
import { openDb } from "../../src/store/db.ts";
import { getPersonalization } from "../../src/store/personalization.ts";
import { fetchUsage } from "../../src/account/usage.ts";

const USAGE = {
  plan: { name: "Pro", credits_per_month: 1000 },
  balance: 412.5,
  month: { from: "2026-12-01", tokens_in: 1, tokens_out: 1, cost: 1 },
  device: { tokens_in: 1, tokens_out: 1, cost: 1 },
  unit: "credits",
};
const PERSONAL = { enabled: true, available: true, personality: null, personality_custom: null, instructions: "be brief" };
/** 50 MB of blanks after the JSON: still JSON, so only a reader that stops early refuses it. */
const PAD = 50 * 1024 * 1024;

let server: ReturnType<typeof Bun.serve>;
let sent = 0;
beforeAll(() => {
  server = Bun.serve({
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      const json = JSON.stringify(path.endsWith("/usage") ? USAGE : PERSONAL);
      const chunk = new Uint8Array(1024 * 1024).fill(0x20);
      let left = PAD;
      sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode(json));
        },
        pull(c) {
          if (left <= 0) return c.close();
          left -= chunk.byteLength;
          sent += chunk.byteLength;
          c.enqueue(chunk);
        },
      });
      // With a Content-Length on /declared, without one (chunked) elsewhere.
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (req.headers.get("x-declared")) headers["content-length"] = String(json.length + PAD);
      return new Response(stream, { headers });
    },
  });
});
afterAll(() => void server.stop(true));

describe("an instance's answer that is too large", () => {
  test("usage: a 50 MB body is not read whole; a failure with a sentence", async () => {
    const read = await fetchUsage({ url: `http://127.0.0.1:${server.port}`, token: "t" });
    expect(read).toEqual({ kind: "failed", why: "its answer is larger than 1024 KB: not read" });
    // What the server had pushed into the socket's buffers when the reader let go: some MB, not the 50.
    expect(sent).toBeLessThan(40 * 1024 * 1024);
  });

  test("personalization: a 50 MB body is not read whole; a failure with a sentence", async () => {
    const read = await fetchPersonalization({ url: `http://127.0.0.1:${server.port}`, token: "t" });
    expect(read).toEqual({ kind: "failed", why: "its answer is larger than 1024 KB: not read" });
  });

  test("a Content-Length over the cap is refused before the body", async () => {
    const declaring = (input: Parameters<typeof fetch>[0], init?: RequestInit) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), "x-declared": "1" } });
    const f: typeof fetch = Object.assign(declaring, { preconnect: fetch.preconnect });
    expect(await fetchUsage({ url: `http://127.0.0.1:${server.port}`, token: "t" }, { fetch: f })).toEqual({ kind: "failed", why: "its answer is larger than 1024 KB: not read" });
  });

  test("an instance's instructions of 1 MB are cut for the system prompt, said", () => {
    const settings = instanceSettings({ ...PERSONAL, instructions: "x".repeat(1024 * 1024), personality: "custom", personality_custom: "y".repeat(1024 * 1024) });
    expect(settings.instructions?.length ?? 0).toBeLessThan(20_000);
    expect(settings.instructions).toEndWith("(cut: the instance's instructions are longer than 16000 characters)");
    expect(settings.personality_custom?.length ?? 0).toBeLessThan(20_000);
  });
});

test("a PUT answered 200 with a body that says something else: what the instance kept is said and kept, not what was sent", async () => {
  const saved = { enabled: true, available: true, personality: "concise", personality_custom: null, instructions: "Use tabs." };
  const instance = Bun.serve({
    port: 0,
    fetch: (req) => Response.json(req.method === "PUT" ? { ...saved, instructions: "Use tabs.\u001b[2J" } : saved),
  });
  const dir = mkdtempSync(join(tmpdir(), "lembas-hostile-"));
  const db = openDb(join(dir, "lembas.db"));
  try {
    const url = `http://127.0.0.1:${instance.port}`;
    const written = await writePersonal(db, { personality: null, personality_custom: null, instructions: null }, [{ name: "work", url, token: "t" }], "instructions", "Use spaces.");
    expect(written).toEqual({ kind: "saved", line: `instructions was sent to work (${url}), but it answered instructions = Use tabs.: that is what a new session uses (config.yaml was not changed)` });
    expect(getPersonalization(db, url)?.value.instructions).toBe("Use tabs.\u001b[2J");
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
    void instance.stop(true);
  }
});
