import { ConfigError } from "../config/errors.ts";
import { resolvePaths } from "../config/paths.ts";
import { UserError } from "../errors.ts";
import { storeFailure } from "../store/db.ts";
import { isTerminal } from "./plain-out.ts";

/**
 * One line on stderr for anything a person can fix; a stack only for what is truly a bug. A
 * failure of the store met after it opened (a disk gone full mid-command) is told like one met
 * opening it: `dbFile` is the one store a command uses.
 */
export function report(error: unknown, dbFile = resolvePaths(process.env).dbFile): number {
  const told = describe(error, dbFile);
  console.error(plainForPipe(`lembas: ${told.message}`));
  return told.exitCode;
}

/** A message may quote text with colours (a server's error, say): at a pipe, a file or with NO_COLOR they are taken out. */
function plainForPipe(line: string): string {
  return isTerminal(2) && process.env.NO_COLOR === undefined ? line : Bun.stripANSI(line);
}

function describe(error: unknown, dbFile: string): { message: string; exitCode: number } {
  const store = storeFailure(error, dbFile);
  if (store) return store;
  if (error instanceof ConfigError) return { message: error.message, exitCode: 2 };
  if (error instanceof UserError) return { message: error.message, exitCode: error.exitCode };
  return { message: `unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, exitCode: 1 };
}
