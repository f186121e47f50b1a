import { describe, expect, test } from "bun:test";
import { dirname, join } from "node:path";
import { AGENT_METHODS_CHECKED, agentMethodParams } from "../../src/rpc/acp-params.ts";
import { zodTreeSentence } from "../../src/rpc/agent.ts";
import { ParamsError } from "../../src/rpc/request-error.ts";

// The ACP SDK's own schemas, which the product no longer loads: the hand checks must read every
// params as they do (src/rpc/acp-params.ts).
type Schema = { safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: { format(): unknown } } };
const generated = (await import(join(dirname(Bun.resolveSync("@agentclientprotocol/sdk", import.meta.dir)), "../schema/zod.gen.js"))) as Record<string, Schema>;

const SDK_SCHEMA: Record<string, string> = {
  initialize: "zInitializeRequest",
  "session/new": "zNewSessionRequest",
  "session/load": "zLoadSessionRequest",
  "session/list": "zListSessionsRequest",
  "session/delete": "zDeleteSessionRequest",
  "session/resume": "zResumeSessionRequest",
  "session/close": "zCloseSessionRequest",
  "session/set_mode": "zSetSessionModeRequest",
  "session/set_config_option": "zSetSessionConfigOptionRequest",
  "session/prompt": "zPromptRequest",
  "session/cancel": "zCancelNotification",
};

const meta = { lembas: { turnId: "t1" } };
const annotations = { audience: ["user", "assistant"], lastModified: "2026-01-01", priority: 1, _meta: meta };
const blocks = [
  { type: "text", text: "hi", annotations, _meta: meta },
  { type: "image", data: "aGk=", mimeType: "image/png", uri: "file:///a.png" },
  { type: "audio", data: "aGk=", mimeType: "audio/wav" },
  { type: "resource_link", uri: "file:///a.ts", name: "a.ts", description: "d", mimeType: "text/plain", size: 10, title: "A" },
  { type: "resource", resource: { uri: "file:///a.ts", text: "x", mimeType: "text/plain" } },
  { type: "resource", resource: { uri: "file:///b.bin", blob: "aGk=" } },
];
const servers = [
  { name: "git", command: "git-mcp", args: ["--x"], env: [{ name: "A", value: "1" }] },
  { type: "http", name: "web", url: "https://example.com/mcp", headers: [{ name: "H", value: "v" }] },
  { type: "sse", name: "old", url: "https://example.com/sse", headers: [] },
];
const capabilities = {
  fs: { readTextFile: true, writeTextFile: false },
  terminal: true,
  session: { compaction: {}, configOptions: { boolean: {} }, notices: {} },
  auth: { terminal: true },
  elicitation: { form: {}, url: {} },
  _meta: { lembas: { protocol: 2 } },
};

/** Well-formed params of each method, from the least to the most filled in. */
const GOOD: Record<string, unknown[]> = {
  initialize: [{ protocolVersion: 1 }, { protocolVersion: 1, clientCapabilities: capabilities, clientInfo: { name: "zed", title: "Zed", version: "1.0" }, _meta: meta }],
  "session/new": [{ cwd: "/p", mcpServers: [] }, { cwd: "/p", mcpServers: servers, additionalDirectories: ["/q"], _meta: { mode: "plan" } }],
  "session/load": [{ sessionId: "ses_1", cwd: "/p", mcpServers: [] }, { sessionId: "ses_1", cwd: "/p", mcpServers: servers, additionalDirectories: [] }],
  "session/list": [{}, { cwd: "/p", cursor: "c" }],
  "session/delete": [{ sessionId: "ses_1" }],
  "session/resume": [{ sessionId: "ses_1", cwd: "/p" }, { sessionId: "ses_1", cwd: "/p", mcpServers: servers }],
  "session/close": [{ sessionId: "ses_1", _meta: meta }],
  "session/set_mode": [{ sessionId: "ses_1", modeId: "plan" }],
  "session/set_config_option": [{ sessionId: "ses_1", configId: "effort", value: "high" }, { sessionId: "ses_1", configId: "x", type: "boolean", value: true }],
  "session/prompt": [{ sessionId: "ses_1", prompt: blocks, _meta: meta }],
  "session/cancel": [{ sessionId: "ses_1" }],
};

/** What replaces one part of good params: every JSON type, and values near the edges of the checks. */
const PALETTE: unknown[] = [undefined, null, 0, -1, 1.5, 70000, "", "x", true, false, [], {}, ["x"], [{}], { type: "text" }, { type: "image", data: 1 }, [{ type: "text" }], { name: "n" }, { _meta: 3 }];

type Path = (string | number)[];

/** Every path in a value (its keys and items, at any depth), and the root. */
function paths(value: unknown, at: Path = []): Path[] {
  const here: Path[] = [at];
  if (Array.isArray(value)) value.forEach((v, i) => here.push(...paths(v, [...at, i])));
  else if (typeof value === "object" && value !== null) for (const [k, v] of Object.entries(value)) here.push(...paths(v, [...at, k]));
  return here;
}

function replaced(value: unknown, path: Path, by: unknown): unknown {
  if (path.length === 0) return by;
  const [head, ...rest] = path as [string | number, ...Path];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  if (by === undefined && rest.length === 0 && !Array.isArray(value)) delete copy[head];
  else copy[head] = replaced(copy[head], rest, by);
  return copy;
}

/** Good params, and each of them with every part replaced by every palette value (and an unknown key added). */
function cases(method: string): unknown[] {
  const out: unknown[] = [undefined, null, [], "x"];
  for (const good of GOOD[method] ?? []) {
    out.push(good, { ...(good as object), extra: 1 });
    for (const path of paths(good)) for (const by of PALETTE) out.push(replaced(good, path, by));
  }
  return out;
}

describe("the hand checks of ACP's params read them as the SDK's schemas do", () => {
  test("every method the SDK checks for an agent is checked", () => {
    expect([...AGENT_METHODS_CHECKED].sort()).toEqual(Object.keys(SDK_SCHEMA).sort());
  });

  for (const method of AGENT_METHODS_CHECKED) {
    test(`${method}: the same verdict, the same params, the same zod tree and sentence`, () => {
      const schema = generated[SDK_SCHEMA[method] ?? ""];
      const check = agentMethodParams(method);
      if (!schema || !check) throw new Error(`no schema for ${method}`);
      let refused = 0;
      const all = cases(method);
      for (const params of all) {
        // As the SDK's app reads a known method's params: absent ones as {}.
        const value = params ?? {};
        const sdk = schema.safeParse(value);
        let ours: { ok: true; value: unknown } | { ok: false; tree: unknown };
        try {
          ours = { ok: true, value: check(value) };
        } catch (error) {
          if (!(error instanceof ParamsError)) throw error;
          ours = { ok: false, tree: error.tree };
        }
        const label = JSON.stringify(value);
        if (sdk.success) {
          expect([label, ours]).toEqual([label, { ok: true, value: sdk.data }]);
          continue;
        }
        refused++;
        const tree = sdk.error.format();
        expect([label, ours]).toEqual([label, { ok: false, tree }]);
        if (!ours.ok) expect([label, zodTreeSentence(ours.tree)]).toEqual([label, zodTreeSentence(tree)]);
      }
      // The cases reach both sides of the check.
      expect(refused).toBeGreaterThan(0);
      expect(all.length - refused).toBeGreaterThan(0);
    });
  }
});
