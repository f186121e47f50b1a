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
