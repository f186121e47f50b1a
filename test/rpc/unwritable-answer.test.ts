/**
 * A handler whose result cannot be written as JSON (a cycle, a BigInt) gets its request a -32603
 * answer; the connection stays open and the next request is answered as usual. Before, the
 * transport's write threw, the stream broke and the connection closed with every request in it.
 */
import { expect, test } from "bun:test";
import { Connection } from "../../src/rpc/json-rpc.ts";
import { lineTransport } from "../../src/rpc/stdio.ts";

test("an answer that cannot be written as JSON is a -32603 answer, and the connection goes on", async () => {
  let push!: (line: string) => void;
  const input = new ReadableStream<Uint8Array>({
    start: (c) => void (push = (line) => c.enqueue(new TextEncoder().encode(`${line}\n`))),
  });
  const lines: string[] = [];
  let wake: (() => void) | null = null;
  const transport = lineTransport(input, (text) => {
    lines.push(...text.split("\n").filter(Boolean));
    wake?.();
  });
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const connection = new Connection(transport.stream, {
    request: async ({ method }) => {
      if (method === "big") return { n: 1n };
      if (method === "cycle") return cyclic;
      return { ok: true };
    },
    notification: () => {},
  });
  const answers = async (n: number) => {
    while (lines.length < n) await new Promise<void>((resolve) => (wake = resolve));
    return lines.map((line) => JSON.parse(line) as { id: number; result?: unknown; error?: { code: number; message: string } });
  };
  push(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "big", params: {} }));
  push(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "cycle", params: {} }));
  push(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "fine", params: {} }));
  const got = await answers(3);
  expect(got.map((a) => a.id)).toEqual([1, 2, 3]);
  expect(got[0]?.error?.code).toBe(-32603);
  expect(got[0]?.error?.message).toContain("could not be written as JSON");
  expect(got[1]?.error?.code).toBe(-32603);
  expect(got[2]?.result).toEqual({ ok: true });
  expect(connection.signal.aborted).toBe(false);
  connection.close();
});
