import { describe, expect, test } from "bun:test";
import { FrameReader, frame, MAX_MESSAGE_BYTES } from "../../src/lsp/framing.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("LSP's framing", () => {
  test("a message split anywhere, and two in one chunk, come out whole; the length counts bytes, not characters", () => {
    const reader = new FrameReader();
    const framed = Buffer.concat([frame({ id: 1, result: "ünïcödé ✓" }), frame({ method: "x" })]);
    const out: unknown[] = [];
    for (let i = 0; i < framed.length; i += 7) out.push(...reader.push(framed.subarray(i, i + 7)));
    expect(out).toEqual([{ id: 1, result: "ünïcödé ✓" }, { method: "x" }]);
  });

  test("a header beside Content-Length is read past", () => {
    const body = JSON.stringify({ id: 2 });
    expect(new FrameReader().push(bytes(`Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: ${body.length}\r\n\r\n${body}`))).toEqual([{ id: 2 }]);
  });

  test("a log line where a header belongs is garbage at once, said with what came", () => {
    expect(() => new FrameReader().push(bytes("Listening on stdio\n"))).toThrow('it wrote "Listening on stdio" where a header belongs');
  });

  test("a body that is not JSON, a header without a length and a length past the bound are garbage", () => {
    expect(() => new FrameReader().push(bytes("Content-Length: 3\r\n\r\nabc"))).toThrow("it sent a message that is not JSON");
    expect(() => new FrameReader().push(bytes("Content-Type: x\r\n\r\n{}"))).toThrow("it sent a header without a Content-Length");
    expect(() => new FrameReader().push(bytes(`Content-Length: ${MAX_MESSAGE_BYTES + 1}\r\n\r\n`))).toThrow("more than lembas reads");
  });
});

describe("a large message", () => {
  /** A 2 MB message: a result of 40,000 diagnostics, as a server that floods sends it. */
  const big = { id: 3, result: Array.from({ length: 40_000 }, (_, i) => ({ message: `problem ${i} ${"é".repeat(16)}` })) };
  const framed = Buffer.concat([frame(big), frame({ method: "after" })]);

  // Read as it once was (the whole buffer copied and scanned at each chunk), 1-byte chunks of
  // 2 MB cost some 2 TB of copying: this test did not end.
  for (const size of [1, 64 * 1024]) {
    test(`comes out whole from chunks of ${size} bytes, and the message after it too`, () => {
      expect(framed.length).toBeGreaterThan(2 * 1024 * 1024);
      const reader = new FrameReader();
      const out: unknown[] = [];
      for (let i = 0; i < framed.length; i += size) out.push(...reader.push(framed.subarray(i, i + size)));
      expect(out).toEqual([big, { method: "after" }]);
    });
  }
});
