/**
 * session/load reads its rows with a check by hand (src/acp/replay-rows.ts), cheaper than zod's
 * first parses: it must read every row as the records' schemas do (src/engine/records.ts), the
 * good ones to the same message and the bad ones to nothing. Each field of each record is spoilt
 * in turn (a wrong type, a missing field) and both must agree.
 */
import { expect, test } from "bun:test";
import { replayRow } from "../../src/acp/replay-rows.ts";
import { parseStored } from "../../src/engine/records.ts";

const diff = { path: "/p/a.md", oldText: null, newText: "# A\n" };
const rows = [
  { role: "user", body: { text: "go", display: "/go", attachments: [{ name: "a.png", mimeType: "image/png", size: 3, path: "/a.png" }], steer: false, mode: "edit" } },
  { role: "user", body: { text: "plain" } },
  {
    role: "user",
    body: {
      text: "Summarize @a.md",
      blocks: [
        { type: "text", text: "Summarize " },
        { type: "resource_link", uri: "file:///p/a.md", name: "a.md", mimeType: "text/markdown", size: 4, title: "A" },
        { type: "image", mimeType: "image/png", path: "/s/a.png", uri: "file:///p/a.png" },
        { type: "resource", uri: "file:///p/b.md", text: "# B\n", mimeType: "text/markdown" },
      ],
    },
  },
  { role: "user", body: { text: "each block's own first", blocks: [{ type: "resource_link", uri: "file:///p/a.md", name: "a.md" }] } },
  { role: "user", body: { text: "an image first", blocks: [{ type: "image", mimeType: "image/png", path: "/s/a.png" }] } },
  { role: "user", body: { text: "a resource first", blocks: [{ type: "resource", uri: "file:///p/b.md", text: "b" }] } },
  { role: "assistant", body: { text: "ok", reasoning: "why", toolCalls: [{ id: "c1", name: "edit", arguments: "{}", extraContent: { google: { sig: "x" } } }], partial: true } },
  { role: "assistant", body: { text: "", reasoning: "", toolCalls: [] } },
  { role: "assistant", body: { text: "", reasoning: "r", toolCalls: [], carry: [{ api: "responses", item: { type: "reasoning", id: "r1" } }, { api: "messages", item: { type: "thinking" } }] } },
  {
    role: "tool",
    body: {
      callId: "c1",
      name: "task",
      output: "done",
      isError: false,
      args: { any: ["thing"] },
      images: [{ mimeType: "image/png", data: "AA==", path: "/a.png" }],
      diffs: [diff, { path: "/p/b.md", oldText: "b", newText: "c" }],
      title: "task",
      kind: "think",
      paths: ["/p/a.md"],
      helpers: [{ title: "Write a.md", status: "completed", diffs: [diff] }, { title: "Read b.md", status: "completed" }],
    },
  },
  { role: "tool", body: { callId: "c2", name: "read", output: "x", isError: true } },
] as const;

const row = (role: string, body: unknown) => ({ seq: 7, role, body, turnId: "turn-1" });

/** Every way to spoil a body one field at a time: each field missing, and set to a value of each wrong kind. */
function spoilt(body: Record<string, unknown>): unknown[] {
  const wrong = [undefined, null, 1, "s", true, [], {}, [1], [{}], Number.NaN];
  const out: unknown[] = [];
  for (const [key, value] of Object.entries(body)) {
    for (const bad of wrong) out.push({ ...body, [key]: bad });
    if (Array.isArray(value) && value.length > 0 && typeof value[0] === "object") {
      const first = value[0] as Record<string, unknown>;
      for (const inner of spoilt(first)) out.push({ ...body, [key]: [inner, ...value.slice(1)] });
    }
  }
  return out;
}

test("a good row of each kind reads as the records' schemas read it", () => {
  for (const { role, body } of rows) expect(replayRow(row(role, body))).toEqual(parseStored(row(role, body)));
  expect(replayRow(row("tool", rows[9].body))?.body).toMatchObject({ helpers: rows[9].body.helpers, title: "task" });
});

test("a row spoilt in any one field reads as the schemas read it: nothing where they refuse it", () => {
  let refused = 0;
  for (const { role, body } of rows) {
    for (const bad of spoilt(body as Record<string, unknown>)) {
      const zod = parseStored(row(role, bad));
      if (zod === null) refused++;
      expect(replayRow(row(role, bad))).toEqual(zod);
    }
  }
  expect(refused).toBeGreaterThan(100);
  for (const body of [null, "text", [1], 3]) for (const role of ["user", "assistant", "tool", "system"]) expect(replayRow(row(role, body))).toBeNull();
});
