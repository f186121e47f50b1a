import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { writeAtomic } from "./atomic.ts";

/**
 * What another holder of a file (a person's editor, with its unsaved buffer) gave for it: its text;
 * or why it gave none (`why`), and the disk's copy is read instead (`fallback` says so to the model).
 * null: the disk's copy is the only one.
 */
export type HeldText = { text: string } | { fallback: string; why: string } | null;

/** Where a whole-file write went: to the disk, or to the file's other holder (which saves it, or not). */
export type Written = { onDisk: boolean };

/**
 * How the file tools read and write a text file, the disk by default. A front end may set another
 * on the session (an editor's, src/acp/editor-files.ts), so that the model sees the person's unsaved
 * text and nothing is written behind their back. The tools still check everything they promise
 * (the project's bounds, protected paths, the read ledger, undo) against what this gives.
 */
export type FileAccess = {
  /** The file's text as its other holder has it now (absolute path); null: read the disk as always. */
  readText(path: string, signal: AbortSignal): Promise<HeldText>;
  /** Writes the file whole; throws an Error whose message says why it was not written. */
  writeText(path: string, text: string, signal: AbortSignal): Promise<Written>;
  /** Whether writeText goes to the other holder (an editor, which saves it) rather than the disk: undo then puts files back through it too. */
  readonly writesHeld: boolean;
};

/** The disk itself: nothing else holds a file, and a write is atomic, its directories made. */
export const diskAccess: FileAccess = {
  writesHeld: false,
  readText: async () => null,
  async writeText(path, text) {
    await mkdir(dirname(path), { recursive: true });
    await writeAtomic(path, text);
    return { onDisk: true };
  },
};
