import { describe, expect, test } from "bun:test";
import { SseLineTooLong, SseParser, sseData } from "../../src/model/sse.ts";

/** Feeds `pieces` one push each and returns every event's data. */
function parse(pieces: string[]): string[] {
  const parser = new SseParser();
  const out: string[] = [];
  for (const piece of pieces) parser.push(piece, out);
  parser.end(out);
  return out;
}

/** Every way of splitting `text` in two. */
function splits(text: string): string[][] {
  return Array.from({ length: text.length + 1 }, (_, i) => [text.slice(0, i), text.slice(i)]);
}

describe("SseParser", () => {
  test("reads data: lines ended by a blank line", () => {
    expect(parse(['data: {"a":1}\n\ndata: [DONE]\n\n'])).toEqual(['{"a":1}', "[DONE]"]);
  });

  test("\\r\\n and lone \\r end lines too, wherever a chunk is cut", () => {
    for (const text of ["data: a\r\n\r\ndata: b\r\n\r\n", "data: a\r\rdata: b\r\r", "data: a\n\ndata: b\n\n"]) {
      for (const pieces of splits(text)) expect(parse(pieces)).toEqual(["a", "b"]);
    }
  });

  test("skips comments and fields other than data", () => {
    expect(parse([": keep-alive\n\nevent: message\nid: 7\nretry: 10\ndata: x\n\n: OPENROUTER PROCESSING\n\n"])).toEqual(["x"]);
  });

  test("joins multi-line data with \\n and takes one optional space after the colon", () => {
    expect(parse(["data: line one\ndata:line two\ndata\n\n"])).toEqual(["line one\nline two\n"]);
  });

  test("a field that only starts with data is not data", () => {
    expect(parse(["dataset: no\n\n"])).toEqual([]);
  });

  test("an empty value, with or without the space, is data all the same, whatever the line ending", () => {
    for (const end of ["\n", "\r\n", "\r"]) {
      expect(parse([`data:${end}${end}data: ${end}${end}data:  two spaces${end}${end}`])).toEqual(["", "", " two spaces"]);
    }
  });

  test("a line split over many chunks is whole", () => {
    const json = JSON.stringify({ text: "x".repeat(1000) });
    const text = `data: ${json}\n\n`;
    const pieces = text.match(/[\s\S]{1,7}/g) ?? [];
    expect(parse(pieces)).toEqual([json]);
  });

  test("a last event without its blank line still counts", () => {
    expect(parse(["data: a\n\ndata: [DONE]"])).toEqual(["a", "[DONE]"]);
  });

  test("a line over the limit throws instead of growing without bound", () => {
    const parser = new SseParser(100);
    expect(() => parser.push(`data: ${"x".repeat(200)}`, [])).toThrow(SseLineTooLong);
  });
});

describe("sseData", () => {
  test("decodes UTF-8 split inside a character", async () => {
    const bytes = new TextEncoder().encode("data: héllo ✓\n\n");
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(new Uint8Array([byte]));
        controller.close();
      },
    });
    const out: string[] = [];
    for await (const data of sseData(body)) out.push(data);
    expect(out).toEqual(["héllo ✓"]);
  });

  // No clock: 200,000 chunks take a linear parser well under a second, and one gone quadratic (each
  // chunk scanning all the text before it: 10^12 characters) hours, so it times the test out.
  test("200,000 small chunks parse in time linear in their number", async () => {
    const encoder = new TextEncoder();
    const chunk = encoder.encode(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "tok " } }] })}\n\n`);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ === 200_000) return controller.close();
        controller.enqueue(chunk);
      },
    });
    let count = 0;
    for await (const _ of sseData(body)) count++;
    expect(count).toBe(200_000);
  }, 30_000);
});
