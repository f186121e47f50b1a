import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { format } from "node:util";
import { errorMessage } from "../errors.ts";
import { rotatingLog } from "../app/logfile.ts";

/**
 * While the screen is drawn, nothing else may write to the terminal: a stray console.error (a bus
 * listener that failed, a library's warning) would tear the frame. Such lines, and errors nobody
 * caught, go to `logs/terminal.log` in the state dir and are said in the transcript in one line;
 * the terminal goes on. Returns how to put things back.
 */
export function catchStrayOutput(logsDir: string, say: (line: string) => void): () => void {
  let append: ((text: string) => void) | null = null;
  try {
    mkdirSync(logsDir, { recursive: true, mode: 0o700 });
    append = rotatingLog(join(logsDir, "terminal.log"));
  } catch {
    // no log file: the transcript line is all there is
  }
  const record = (text: string) => {
    try {
      append?.(`${new Date().toISOString()} ${text}\n`);
    } catch {
      // a full disk: the line was said on screen
    }
  };
  const stray = (...args: unknown[]) => {
    const text = format(...args);
    record(text);
    say(text.split("\n")[0] ?? text);
  };
  const uncaught = (error: unknown) => {
    record(`unexpected error (the terminal goes on): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    say(`unexpected error (the terminal goes on; logs/terminal.log has it): ${errorMessage(error)}`);
  };
  const saved = { error: console.error, warn: console.warn, log: console.log, info: console.info };
  console.error = stray;
  console.warn = stray;
  console.log = stray;
  console.info = stray;
  process.on("uncaughtException", uncaught);
  process.on("unhandledRejection", uncaught);
  return () => {
    Object.assign(console, saved);
    process.off("uncaughtException", uncaught);
    process.off("unhandledRejection", uncaught);
  };
}
