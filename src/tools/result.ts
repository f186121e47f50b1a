import { errorCode } from "../errors.ts";
import type { ToolResult } from "./tool.ts";

/** A successful result. */
export function ok(output: string, extra: Omit<ToolResult, "output" | "isError"> = {}): ToolResult {
  return { output, ...extra };
}

/** A failed result: `output` is a sentence the model can act on. */
export function fail(output: string, meta?: Record<string, unknown>): ToolResult {
  return meta ? { output, isError: true, meta } : { output, isError: true };
}

/** Turns a file-system error into a sentence naming the path as the model knows it. */
export function fsErrorMessage(error: unknown, shown: string): string {
  switch (errorCode(error)) {
    case "ENOENT":
      return `${shown} does not exist.`;
    case "EACCES":
    case "EPERM":
      return `Permission denied for ${shown}.`;
    case "EISDIR":
      return `${shown} is a directory.`;
    case "ENOTDIR":
      return `A part of ${shown} is not a directory.`;
    case "ENOSPC":
      return `No space left on the device to write ${shown}.`;
    case "EROFS":
      return `${shown} is on a read-only file system.`;
    default:
      return `${shown}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** A write or edit refused because the file changed after the model last saw it. */
export function changedSinceRead(shown: string, verb: "write" | "edit"): string {
  return `${shown} has changed since you last read it (the person or a command changed it): read it again, then ${verb} it, so that their changes are kept.`;
}
