import { ConfigError } from "../config/errors.ts";
import { resolvePaths } from "../config/paths.ts";
import { UserError } from "../errors.ts";
import { storeFailure } from "../store/db.ts";

/**
 * One line on stderr for anything a person can fix; a stack only for what is truly a bug. A
 * failure of the store met after it opened (a disk gone full mid-command) is told like one met
 * opening it: `dbFile` is the one store a command uses.
 */
export function report(error: unknown, dbFile = resolvePaths(process.env).dbFile): number {
  const store = storeFailure(error, dbFile);
  if (store) {
    console.error(`lembas: ${store.message}`);
    return store.exitCode;
  }
  if (error instanceof ConfigError) {
    console.error(`lembas: ${error.message}`);
    return 2;
  }
  if (error instanceof UserError) {
    console.error(`lembas: ${error.message}`);
    return error.exitCode;
  }
  if (error instanceof Error && error.name === "CLIError") {
    console.error(`lembas: ${error.message} (see lembas --help)`);
    return 2;
  }
  console.error(`lembas: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return 1;
}
