import { StderrTail } from "../stderr-tail.ts";

/** How many of its last lines a notice quotes, and how long each may be. */
const QUOTED_LINES = 3;
const QUOTED_CHARS = 400;

/**
 * What a language server writes to stderr, read as it writes (so it never blocks on a full pipe),
 * its last lines kept: `quote` gives them as a notice says them, once `ended` (or a moment after).
 */
export function stderrTail(stream: ReadableStream<Uint8Array>): { ended: Promise<void>; quote(): string } {
  const tail = new StderrTail(QUOTED_LINES, QUOTED_CHARS);
  const decoder = new TextDecoder();
  const ended = (async () => {
    try {
      for await (const chunk of stream) tail.add(decoder.decode(chunk, { stream: true }));
    } catch {
      // The pipe broke with the process: what was read is what there is.
    }
  })();
  return {
    ended,
    quote: () =>
      tail
        .text()
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean)
        .join(" / "),
  };
}
