/** The most of a server's stderr kept: the end of it is what says why it stopped. */
const KEPT_CHARS = 4_000;
/** How many of its last lines a notice quotes, and how long it may be. */
const QUOTED_LINES = 3;
const QUOTED_CHARS = 400;

/**
 * What a process writes to stderr, read as it writes (so it never blocks on a full pipe), its end
 * kept: `quote` gives its last lines, as a notice says them, once `ended` (or a moment after).
 */
export function stderrTail(stream: ReadableStream<Uint8Array>): { ended: Promise<void>; quote(): string } {
  let tail = "";
  const decoder = new TextDecoder();
  const ended = (async () => {
    try {
      for await (const chunk of stream) tail = (tail + decoder.decode(chunk, { stream: true })).slice(-KEPT_CHARS);
    } catch {
      // The pipe broke with the process: what was read is what there is.
    }
  })();
  return {
    ended,
    quote: () => {
      const lines = tail.split("\n").map((line) => line.trim()).filter(Boolean).slice(-QUOTED_LINES).join(" / ");
      return lines.length > QUOTED_CHARS ? `…${lines.slice(-QUOTED_CHARS)}` : lines;
    },
  };
}
