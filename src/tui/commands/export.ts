import { existsSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { extname, isAbsolute, join, resolve } from "node:path";
import { errorCode, errorMessage } from "../../errors.ts";
import { historyTurns } from "../../transcript/history-turns.ts";
import { toMarkdown } from "../../transcript/markdown.ts";
import type { CommandHost } from "../command-host.ts";
import { say } from "./say.ts";

/** /export [PATH]: the session's turns from the store as Markdown; an existing file is never overwritten. */
export function exportTranscript(app: CommandHost, args: string): void {
  const session = app.runtime.session;
  const turns = historyTurns(session.messages());
  if (turns.length === 0) return say(app, "there is nothing to export yet");
  const name = `lembas-${session.id}.md`;
  const given = args ? place(args, session.cwd) : session.cwd;
  // A directory (the session's by default) gets the file inside it.
  const wanted = isDirectory(given) ? join(given, name) : given;
  const markdown = toMarkdown({ id: session.id, title: session.title, cwd: session.cwd, root: session.root }, turns);
  try {
    const written = writeFresh(wanted, markdown);
    const count = turns.filter((t) => t.role === "user").length;
    say(app, `exported ${count} ${count === 1 ? "turn" : "turns"} to ${written}`);
  } catch (error) {
    say(app, `the transcript could not be written to ${wanted}: ${errorMessage(error)}`, "error");
  }
}

function place(path: string, cwd: string): string {
  const home = path === "~" || path.startsWith("~/") ? join(homedir(), path.slice(1)) : path;
  return isAbsolute(home) ? home : resolve(cwd, home);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Writes to PATH, or to PATH-1, PATH-2, … (before the extension) when it is taken; the path written. */
function writeFresh(path: string, text: string): string {
  const ext = extname(path);
  const stem = ext ? path.slice(0, -ext.length) : path;
  for (let n = 0; n < 1000; n++) {
    const candidate = n === 0 ? path : `${stem}-${n}${ext}`;
    if (existsSync(candidate)) continue;
    try {
      writeFileSync(candidate, text, { flag: "wx" });
      return candidate;
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
    }
  }
  throw new Error("every name up to -999 is taken");
}
