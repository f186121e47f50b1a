/** Reading the service's log: its last lines, and what is appended to it while one watches. */
import { open, stat } from "node:fs/promises";

const CHUNK = 64 * 1024;

/** The file's last `count` lines and its size then; reads from the end, never the whole file. */
export async function tailLines(file: string, count: number): Promise<{ text: string; size: number }> {
  const handle = await open(file, "r");
  try {
    const { size } = await handle.stat();
    let start = size;
    let bytes = Buffer.alloc(0);
    // Bytes, not text, until the end: a character split across two chunks stays whole.
    while (start > 0 && newlines(bytes) <= count) {
      const length = Math.min(CHUNK, start);
      start -= length;
      const chunk = Buffer.alloc(length);
      await handle.read(chunk, 0, length, start);
      bytes = Buffer.concat([chunk, bytes]);
    }
    return { text: lastLines(bytes.toString("utf8"), count), size };
  } finally {
    await handle.close();
  }
}

function newlines(bytes: Buffer): number {
  let n = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

function lastLines(text: string, count: number): string {
  if (count <= 0) return "";
  const lines = text.split("\n");
  const trailing = lines.at(-1) === "" ? lines.pop() : undefined;
  return lines.slice(-count).join("\n") + (trailing === undefined ? "" : "\n");
}

/**
 * Hands `onText` whatever is appended to `file` after byte `offset`, checking every `intervalMs`
 * until `signal` aborts. A file that shrank or was replaced is read again from its start.
 */
export async function followFile(file: string, offset: number, onText: (text: string) => void, signal: AbortSignal, intervalMs = 250): Promise<void> {
  const decoder = new TextDecoder("utf-8");
  let position = offset;
  let inode = (await stat(file).catch(() => null))?.ino;
  while (!signal.aborted) {
    await Bun.sleep(intervalMs);
    const info = await stat(file).catch(() => null);
    if (!info) continue;
    if (info.ino !== inode || info.size < position) {
      inode = info.ino;
      position = 0;
    }
    if (info.size === position) continue;
    const handle = await open(file, "r");
    try {
      const buffer = Buffer.alloc(info.size - position);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      position += bytesRead;
      const text = decoder.decode(buffer.subarray(0, bytesRead), { stream: true });
      if (text) onText(text);
    } finally {
      await handle.close();
    }
  }
}
