import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { chmod, lstat, open, realpath, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { errorCode } from "../errors.ts";

/**
 * Writes a file atomically: a temp file in the same directory, synced, then renamed over the
 * target. An existing file keeps its mode; a symlink is followed, so the link stays a link.
 */
export async function writeAtomic(path: string, content: string): Promise<void> {
  const target = await followLink(path);
  const mode = await existingMode(target);
  const temp = tempBeside(target);
  try {
    const handle = await open(temp, "wx", mode ?? 0o666);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // open() applies the umask: chmod gives the existing file's mode back exactly.
    if (mode !== undefined) await chmod(temp, mode);
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}

/**
 * Writes a new file whole or not at all: a temp file beside it, synced, then renamed to its name.
 * A write that fails (a full disk) leaves nothing: the temp file is removed and the error thrown.
 */
export function writeNewFileSync(path: string, bytes: Uint8Array, mode: number): void {
  const temp = tempBeside(path);
  try {
    const fd = openSync(temp, "wx", mode);
    try {
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // never made, or renamed already
    }
    throw error;
  }
}

/** A hidden name of its own beside `path`, in the same directory (a rename across file systems is a copy). */
function tempBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`);
}

async function followLink(path: string): Promise<string> {
  try {
    const info = await lstat(path);
    if (!info.isSymbolicLink()) return path;
    // A dangling link is replaced by the file rather than written through.
    return await realpath(path).catch(() => path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return path;
    throw error;
  }
}

async function existingMode(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mode & 0o7777;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}
