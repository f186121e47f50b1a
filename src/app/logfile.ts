import { appendFileSync, renameSync, rmSync, statSync } from "node:fs";
import { errorCode } from "../errors.ts";

/** Past this size the log is rotated: `lembas.log` becomes `lembas.log.1`, and so on. */
export const LOG_MAX_BYTES = 8 * 1024 * 1024;
/** How many rotated files are kept beside the live one (so at most about 4 × LOG_MAX_BYTES on disk). */
export const LOG_KEEP = 3;

/**
 * Appends lines to a log file that never grows past `maxBytes`: when a line would take it over,
 * the file moves to `<file>.1` (the older ones to `.2`, … up to `keep`, the oldest dropped) and a
 * new file starts. One writer per file (the service); readers that follow it (`service logs -f`)
 * notice the new file by its inode.
 */
export function rotatingLog(file: string, opts: { maxBytes?: number; keep?: number } = {}): (text: string) => void {
  const maxBytes = opts.maxBytes ?? LOG_MAX_BYTES;
  const keep = Math.max(1, opts.keep ?? LOG_KEEP);
  let size = sizeOf(file);
  return (text) => {
    const bytes = Buffer.byteLength(text);
    if (size > 0 && size + bytes > maxBytes) {
      try {
        rotate(file, keep);
      } finally {
        // Rotated, or the file was gone (removed by hand): either way the next line starts a file.
        size = sizeOf(file);
      }
    }
    appendFileSync(file, text, { mode: 0o600 });
    size += bytes;
  };
}

function rotate(file: string, keep: number): void {
  rmSync(`${file}.${keep}`, { force: true });
  for (let n = keep - 1; n >= 1; n--) {
    try {
      renameSync(`${file}.${n}`, `${file}.${n + 1}`);
    } catch {
      // that one did not exist yet
    }
  }
  try {
    renameSync(file, `${file}.1`);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
