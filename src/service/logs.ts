/** Reading the service's log: its last lines, and what is appended to it while one watches. */
import { existsSync } from "node:fs";
import { open, stat } from "node:fs/promises";

const CHUNK = 64 * 1024;

/** Where a reader stopped: the file (by inode) and the byte after what it read. */
export type LogPosition = { size: number; inode: number | null };

/** The file's last `count` lines and where they end; reads from the end, never the whole file. */
export async function tailLines(file: string, count: number): Promise<{ text: string } & LogPosition> {
  const handle = await open(file, "r");
  try {
    const { size, ino } = await handle.stat();
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
    return { text: lastLines(bytes.toString("utf8"), count), size, inode: ino };
  } finally {
    await handle.close();
  }
}

/**
 * The log's last `count` lines, from the file before it when the log was rotated lately (see
 * logfile.ts), and where the live file ended.
 */
export async function tailLog(file: string, count: number): Promise<{ text: string } & LogPosition> {
  const live = existsSync(file) ? await tailLines(file, count) : { text: "", size: 0, inode: null };
  const have = live.text === "" ? 0 : live.text.split("\n").length - (live.text.endsWith("\n") ? 1 : 0);
  const older = `${file}.1`;
  if (have >= count || !existsSync(older)) return live;
  const before = await tailLines(older, count - have);
  const joint = before.text === "" || before.text.endsWith("\n") ? before.text : `${before.text}\n`;
  return { ...live, text: joint + live.text };
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
 * Hands `onText` whatever is appended to `file` after `from`, checking every `intervalMs` until
 * `signal` aborts. A file that shrank or was replaced is read again from its start (after the
 * rest of the old one, when the log was rotated).
 */
export async function followFile(file: string, from: LogPosition, onText: (text: string) => void, signal: AbortSignal, intervalMs = 250): Promise<void> {
  const decoder = new TextDecoder("utf-8");
  let position = from.size;
  let inode = from.inode;
  while (!signal.aborted) {
    await Bun.sleep(intervalMs);
    const info = await stat(file).catch(() => null);
    if (!info) continue;
    if (info.ino !== inode || info.size < position) {
      // Rotated (logfile.ts): what was written to the old file since the last look is in <file>.1.
      const rotated = await stat(`${file}.1`).catch(() => null);
      if (rotated && rotated.ino === inode && rotated.size > position) onText((await readFrom(`${file}.1`, position, rotated.size, decoder)).text);
      inode = info.ino;
      position = 0;
    }
    if (info.size === position) continue;
    const { text, bytesRead } = await readFrom(file, position, info.size, decoder);
    position += bytesRead;
    if (text) onText(text);
  }
}

async function readFrom(file: string, from: number, to: number, decoder: TextDecoder): Promise<{ text: string; bytesRead: number }> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(to - from);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
    return { text: decoder.decode(buffer.subarray(0, bytesRead), { stream: true }), bytesRead };
  } finally {
    await handle.close();
  }
}
