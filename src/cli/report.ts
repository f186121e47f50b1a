import { ConfigError } from "../config/errors.ts";
import { UserError } from "../errors.ts";
import { StoreError } from "../store/db.ts";

/** One line on stderr for anything a person can fix; a stack only for what is truly a bug. */
export function report(error: unknown): number {
  if (error instanceof ConfigError) {
    console.error(`lembas: ${error.message}`);
    return 2;
  }
  if (error instanceof UserError) {
    console.error(`lembas: ${error.message}`);
    return error.exitCode;
  }
  if (error instanceof StoreError) {
    console.error(`lembas: ${error.message}`);
    return 2;
  }
  if (error instanceof Error && error.name === "CLIError") {
    console.error(`lembas: ${error.message} (see lembas --help)`);
    return 2;
  }
  console.error(`lembas: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return 1;
}
