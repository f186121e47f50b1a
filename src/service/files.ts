/** The few file operations installing a service needs. */
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { writeAtomic } from "../config/save.ts";

/** Writes a unit file (mode 0644) whole or not at all; false when it already had this text. */
export function writeUnitFile(path: string, text: string): boolean {
  if (existsSync(path) && readFileSync(path, "utf8") === text) return false;
  mkdirSync(dirname(path), { recursive: true });
  writeAtomic(path, text, 0o644);
  return true;
}

/** A unit file written by an install that may still fail: `undo` puts back what was there before. */
export type WrittenUnit = { wrote: boolean; undo(): string };

/**
 * Writes a unit file as {@link writeUnitFile} does, keeping what it replaces: `undo` restores
 * the old text, or removes the file when there was none, and says which it did. A file that
 * already had this text is left as it is.
 */
export function writeUnitFileUndoable(path: string, text: string): WrittenUnit {
  const before = existsSync(path) ? readFileSync(path, "utf8") : null;
  const wrote = writeUnitFile(path, text);
  return {
    wrote,
    undo() {
      if (!wrote) return `${path} is left as it was`;
      if (before === null) {
        removeUnitFile(path);
        return `removed ${path}`;
      }
      writeAtomic(path, before, 0o644);
      return `put back the ${path} that was there`;
    },
  };
}

/** Removes a unit file; false when there was none. */
export function removeUnitFile(path: string): boolean {
  if (!existsSync(path)) return false;
  rmSync(path, { force: true });
  return true;
}

/** The directory of a log the manager opens for the service must exist first (mode 0700). */
export function ensureLogDir(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
}
