import type { EventOf } from "../bus/index.ts";
import { terminalText } from "../controls.ts";
import { unifiedDiff } from "../tools/diff.ts";
import { displayPath } from "../tools/paths.ts";
import type { Paints } from "./paint.ts";
import { counted } from "../plural.ts";

/** Lines of an edit's diff shown; the rest is counted. */
const DIFF_LINES = 40;
/** The last lines of a command's output shown once it ended. */
const TAIL_LINES = 5;

/**
 * What `lembas run` shows under a tool's line once it ended: an edit's diff, a command's last
 * lines and exit code, a failure's first line; nothing for a read or a search that went well.
 * `output` is what the command printed as it ran (its progress), when it did.
 */
export function toolResultLines(event: EventOf<"tool_end">, output: string | undefined, paint: Paints, root: string): string[] {
  if (event.diffs && event.diffs.length > 0 && !event.isError) return event.diffs.flatMap((diff) => diffLines(diff, paint, root));
  if (event.name === "todo" && !event.isError) return todoLines(event.output, paint);
  if (event.name === "bash" && typeof event.meta?.jobId === "string") return jobStart(event.meta, event.isError, paint);
  if (event.name === "bash") return commandEnd(output ?? (event.isError ? event.output : ""), event.meta, event.isError, paint);
  if (!event.isError) return [];
  const lines = shown(event.output).replace(/\n+$/, "").split("\n");
  const more = lines.length > 1 ? paint.dim(` (${counted(lines.length - 1, "more line", "more lines")})`) : "";
  return [`${paint.error(`  ⎿ ${lines[0] ?? ""}`)}${more}`];
}

/**
 * A helper's call (the task tool's), under the task's line: indented as it starts; once it ended,
 * the diff of what it changed (as the session's own edits show theirs), or, marked, that it failed
 * (or was refused); nothing more for one that changed nothing and went well.
 */
export function helperCallLines(event: EventOf<"sub_tool">, paint: Paints, root: string): string[] {
  if (event.status === "in_progress") return [paint.dim(`  › ${shown(event.title)}`)];
  if (event.status === "failed") return [paint.error(`  ✗ ${shown(event.title)}`)];
  return (event.diffs ?? []).flatMap((diff) => diffLines(diff, paint, root, "    "));
}

/** A file's diff, its head line then its lines, each `indent` further in than a call's line. */
function diffLines(diff: { path: string; oldText: string | null; newText: string }, p: Paints, root: string, indent = ""): string[] {
  const text = shown(unifiedDiff(diff.oldText ?? "", diff.newText, { maxLines: 100_000 }));
  const lines = text ? text.split("\n") : [];
  const added = lines.filter((l) => l.startsWith("+")).length;
  const removed = lines.filter((l) => l.startsWith("-")).length;
  const path = root ? displayPath(diff.path, root) : diff.path;
  const out = [p.dim(`${indent}  ⎿ ${shown(path)}${diff.oldText === null ? " (new)" : ""}: +${added} −${removed}`)];
  for (const line of lines.slice(0, DIFF_LINES)) {
    const colour = line.startsWith("+") ? p.added : line.startsWith("-") ? p.removed : line.startsWith("@@") ? p.hunk : p.dim;
    out.push(colour(`${indent}    ${line}`));
  }
  if (lines.length > DIFF_LINES) out.push(p.dim(`${indent}    … ${counted(lines.length - DIFF_LINES, "more diff line", "more diff lines")}`));
  return out;
}

/** The task list as the todo tool left it, an item a line (its first line, the count, is the tool's title already). */
function todoLines(output: string, p: Paints): string[] {
  return shown(output).split("\n").slice(1).filter((line) => line.trim() !== "").map((line) => p.dim(`    ${line}`));
}

/** A command's last lines, then how it ended: its exit code, or what stopped it. */
function commandEnd(output: string, meta: Record<string, unknown> | undefined, isError: boolean, p: Paints): string[] {
  const all = output.trim() === "" ? [] : shown(output).replace(/\n+$/, "").split("\n");
  const cut = all.length > TAIL_LINES ? [p.dim(`  │ … ${counted(all.length - TAIL_LINES, "line")} before`)] : [];
  const tail = all.slice(-TAIL_LINES).map((line) => p.dim(`  │ ${line}`));
  const code = typeof meta?.exitCode === "number" ? meta.exitCode : null;
  const how = typeof meta?.stopped === "string" ? (meta.stopped === "timeout" ? "timed out" : "cancelled")
    : typeof meta?.signal === "string" ? `killed by ${meta.signal}`
    : code !== null ? `exit ${code}`
    : isError ? "failed" : "ended";
  const failed = isError || code !== 0;
  return [...cut, ...tail, (failed ? p.error : p.dim)(`  ⎿ ${how}`)];
}

/** A background job's start: its id and pid, or how it ended already (the job tool reads its output). */
function jobStart(meta: Record<string, unknown>, isError: boolean, p: Paints): string[] {
  const id = String(meta.jobId);
  if (meta.state === "running") return [p.dim(`  ⎿ ${id} running in the background (pid ${String(meta.pid)})`)];
  const code = typeof meta.exitCode === "number" ? meta.exitCode : null;
  return [(isError || code !== 0 ? p.error : p.dim)(`  ⎿ ${id} ended at once: ${code === null ? "stopped" : `exit ${code}`}`)];
}

/** Text from the model, a file or a command, as it may be printed: no escape sequences, no carriage returns. */
export function shown(text: string): string {
  return terminalText(text);
}
