import { describe, expect, test } from "bun:test";
import { MAX_COLUMNS, scanLines } from "../../src/tools/line-scan.ts";

const WINDOW = 256 * 1024;
const OVERLAP = 4096;

/** The lines `scanLines` gives for `text`, sent in chunks of `chunk` characters. */
async function scan(text: string, regex: RegExp, chunk = 65536) {
  const bytes = new TextEncoder().encode(text);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < bytes.length; at += chunk) controller.enqueue(bytes.subarray(at, at + chunk));
      controller.close();
    },
  });
  const lines = [];
  for await (const line of scanLines(stream, regex)) lines.push(line);
  return lines;
}

describe("scanning lines", () => {
  test("short lines are tested whole, numbered, \\r dropped, no empty line after the last newline", async () => {
    const lines = await scan("one\r\nKEY two\n\nthree KEY", /KEY/);
    expect(lines).toEqual([
      { n: 1, text: "one", match: false },
      { n: 2, text: "KEY two", match: true },
      { n: 3, text: "", match: false },
      { n: 4, text: "three KEY", match: true },
    ]);
    expect(await scan("a\n", /a/)).toEqual([{ n: 1, text: "a", match: true }]);
  });

  test("a line of 5 MB with a match deep in it matches, and only its start is kept, with its length", async () => {
    const line = `${"a".repeat(3_000_000)}KEY${"b".repeat(2_000_000)}`;
    const [only, next] = await scan(`${line}\nafter\n`, /KEY/, 7777);
    expect(only?.match).toBe(true);
    expect(only?.text).toBe("a".repeat(MAX_COLUMNS));
    expect(only?.cut).toEqual({ length: line.length });
    expect(next).toEqual({ n: 2, text: "after", match: false });
  });

  test("a match straddling two windows is found; ^ and $ match only at the ends of a long line", async () => {
    const straddling = `${"a".repeat(WINDOW - 2)}KEY${"a".repeat(WINDOW)}`;
    expect((await scan(straddling, /KEY/))[0]?.match).toBe(true);
    const atSecondWindow = `${"a".repeat(WINDOW - OVERLAP)}b${"a".repeat(WINDOW)}`;
    expect((await scan(atSecondWindow, /^b/))[0]?.match).toBe(false);
    expect((await scan(atSecondWindow, /b/))[0]?.match).toBe(true);
    const atFirstWindowEnd = `${"a".repeat(WINDOW - 1)}b${"a".repeat(WINDOW)}`;
    expect((await scan(atFirstWindowEnd, /b$/))[0]?.match).toBe(false);
    expect((await scan(atFirstWindowEnd, /b/))[0]?.match).toBe(true);
    expect((await scan(atFirstWindowEnd, /^a/))[0]?.match).toBe(true);
    expect((await scan(`${atFirstWindowEnd}z`, /z$/))[0]?.match).toBe(true);
  });

  test("multi-byte characters split across chunks decode whole", async () => {
    const lines = await scan("été KEY ünï\n", /KEY ünï/, 1);
    expect(lines).toEqual([{ n: 1, text: "été KEY ünï", match: true }]);
  });
});
