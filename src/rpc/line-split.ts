/**
 * A byte stream's lines as text, trimmed, the empty ones left out, split as bytes arrive until the
 * stream ends. A line longer than `max` bytes is not kept: `tooLong` is called once for it and it is
 * skipped up to its end, so no single line can exhaust memory or end the stream.
 */
export async function readLines(input: ReadableStream<Uint8Array>, max: number, line: (text: string) => void, tooLong: () => void): Promise<void> {
  const decoder = new TextDecoder();
  const emit = (bytes: Uint8Array) => {
    const text = decoder.decode(bytes).trim();
    if (text) line(text);
  };
  let pieces: Uint8Array[] = [];
  let size = 0;
  let skipping = false;
  const take = (chunk: Uint8Array) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const part = chunk.subarray(start, nl);
      start = nl + 1;
      if (skipping) skipping = false;
      else if (size + part.length > max) tooLong();
      else emit(size === 0 ? part : Buffer.concat([...pieces, part]));
      pieces = [];
      size = 0;
    }
    if (start >= chunk.length || skipping) return;
    const rest = chunk.subarray(start);
    if (size + rest.length > max) {
      tooLong();
      pieces = [];
      size = 0;
      skipping = true;
      return;
    }
    pieces.push(rest.slice());
    size += rest.length;
  };
  const reader = input.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value) take(value);
    }
    if (size > 0 && !skipping) emit(Buffer.concat(pieces));
  } finally {
    reader.releaseLock();
  }
}
