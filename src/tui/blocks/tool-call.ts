import type { FileDiff } from "../../tools/tool.ts";
import { type Denial, denialText } from "../../transcript/denials.ts";
import type { Theme } from "../theme.ts";
import { fittedDiff } from "./fitted-diff.ts";
import { CachedBlock, hanging } from "./lines.ts";
import { plain } from "./plain.ts";
import { counted } from "../../plural.ts";
import { searchLines } from "./search-lines.ts";

/** Lines of a diff shown in the transcript; the rest is counted. */
const DIFF_LINES = 40;
/** Lines of a command's output shown once it ended (its last ones while it runs). */
const OUTPUT_LINES = 8;
const LIVE_OUTPUT_LINES = 5;
/** Rows one line of a failure may wrap to. */
const FAILURE_ROWS = 4;
/** A helper's calls shown under its task: the newest; the earlier ones counted. */
const HELPER_LINES = 5;
/** Lines of a failed call's output shown: the first ones, and always its last (the reason). */
const ERROR_LINES = 3;
/** A running command's output kept to show: the newest, never the whole flood. */
const LIVE_KEEP_CHARS = 16_384;

type State = "running" | "done" | "error" | "denied";

/** A call a helper made (the task tool's), shown on a line of its own under the task, with the diffs of what it changed. */
type HelperCall = { title: string; status: string; diffs: FileDiff[] };

/** A tool call: its title and state, then a short result: a diff, a command's output cut with a count. */
export class ToolCallBlock extends CachedBlock {
  private state: State = "running";
  private live = "";
  private output = "";
  private diffs: FileDiff[] = [];
  private why = "";
  private meta: Record<string, unknown> = {};
  private readonly helpers = new Map<string, HelperCall>();

  constructor(
    readonly callId: string,
    private readonly name: string,
    private title: string,
    private readonly theme: Theme,
    private readonly shown: (path: string) => string = (path) => path,
  ) {
    super();
    this.title = plain(title);
  }

  progress(output: string): void {
    this.live = (this.live + plain(output)).slice(-LIVE_KEEP_CHARS);
    this.invalidate();
  }

  end(event: { output: string; isError: boolean; diffs?: FileDiff[]; meta?: Record<string, unknown> }): void {
    // A command that exited non-zero did run, and the model sees its output: it is shown as failed all the same.
    const failed = typeof event.meta?.exitCode === "number" && event.meta.exitCode !== 0;
    this.state = event.isError || failed ? "error" : "done";
    this.output = plain(event.output);
    this.diffs = event.diffs ?? [];
    this.meta = event.meta ?? {};
    this.live = "";
    this.invalidate();
  }

  /** A helper's call started or ended (status in_progress, completed or failed). */
  helper(event: { callId: string; title: string; status: string; diffs?: FileDiff[] }): void {
    this.helpers.set(event.callId, { title: plain(event.title), status: event.status, diffs: event.diffs ?? [] });
    this.invalidate();
  }

  deny(denial: Denial): void {
    this.state = "denied";
    this.why = plain(denialText(denial));
    this.invalidate();
  }

  rename(title: string): void {
    this.title = plain(title);
    this.invalidate();
  }

  get running(): boolean {
    return this.state === "running";
  }

  protected draw(width: number): string[] {
    const t = this.theme;
    const mark = { running: t.accent("○ "), done: t.ok("● "), error: t.error("✗ "), denied: t.warn("⊘ ") }[this.state];
    const lines = ["", ...hanging(t.bold(this.title), width, mark, "  "), ...this.helperLines(width)];
    if (this.state === "denied") return [...lines, ...hanging(this.why, width, "  ⎿ ", "    ").map(t.warn)];
    if (this.state === "running") return [...lines, ...this.tailOf(this.live, LIVE_OUTPUT_LINES, width)];
    if (this.diffs.length > 0) return [...lines, ...this.drawDiffs(this.diffs, width), ...this.diagnostics(width)];
    return [...lines, ...this.summary(width)];
  }

  /** The errors (and warnings) the file's language server reported after the edit, as the result listed them. */
  private diagnostics(width: number): string[] {
    const listed = this.meta.diagnostics;
    if (!Array.isArray(listed)) return [];
    const lines = listed.filter((line): line is string => typeof line === "string");
    return lines.map((line, i) => (/ error /.test(line) ? this.theme.error : this.theme.warn)(clip(`  ${i === 0 ? "⚠ " : "  "}${plain(line)}`, width)));
  }

  /**
   * One indented line per helper call, marked as the call is (running, done, failed), with the diff
   * of what it changed under it as the session's own edits show theirs: the newest, the earlier ones counted.
   */
  private helperLines(width: number): string[] {
    const t = this.theme;
    const all = [...this.helpers.values()];
    const earlier = all.slice(0, Math.max(0, all.length - HELPER_LINES));
    const failed = earlier.filter((h) => h.status === "failed").length;
    const count = earlier.length === 0 ? [] : [t.dim(`    … ${earlier.length} earlier ${earlier.length === 1 ? "call" : "calls"}${failed ? ` (${failed} failed)` : ""}`)];
    return [
      ...count,
      ...all.slice(earlier.length).flatMap((h) => {
        const mark = h.status === "failed" ? t.error("✗ ") : h.status === "completed" ? t.ok("● ") : t.accent("○ ");
        return [clip(`    ${mark}${t.dim(h.title)}`, width), ...this.drawDiffs(h.diffs, width, "    ")];
      }),
    ];
  }

  private tailOf(text: string, count: number, width: number): string[] {
    const all = text.replace(/\r/g, "").split("\n").filter((l, i, a) => l !== "" || i < a.length - 1);
    return all.slice(-count).flatMap((line) => hanging(line, width, "  │ ", "  │ ").slice(0, 1)).map(this.theme.dim);
  }

  private summary(width: number): string[] {
    const t = this.theme;
    const all = this.output.replace(/\r/g, "").replace(/\n+$/, "").split("\n");
    const job = this.name === "bash" ? jobStarted(this.meta, all) : null;
    if (job) return this.jobStart(job, all, width);
    if (this.state === "error") return this.failure(all, width);
    if (this.name === "fetch") return [clip(`  ⎿ ${fetchedLine(all, t.dim)}`, width)];
    if (this.name === "library") return [clip(`  ⎿ ${libraryLine(all, t.dim)}`, width)];
    if (this.name === "web_search") {
      const { head, sources } = searchLines(all, t.dim);
      return [clip(`  ⎿ ${head}`, width), ...sources.map((line) => t.dim(clip(`  │ ${line}`, width)))];
    }
    // A job's listing and output read as a command's do: a line each.
    if (this.name !== "bash" && this.name !== "job") {
      const first = all[0] ?? "";
      const more = all.length > 1 ? t.dim(` (${all.length} lines)`) : "";
      return [clip(`  ⎿ ${t.dim(first)}${more}`, width)];
    }
    const shown = all.slice(0, OUTPUT_LINES).map((line) => clip(`  │ ${line}`, width)).map(t.dim);
    if (all.length > OUTPUT_LINES) shown.push(t.dim(`  … ${counted(all.length - OUTPUT_LINES, "more line", "more lines")} (${all.length} in all)`));
    return shown;
  }

  /**
   * A background job's start: its id and pid (or how it ended at once), then what it printed in its
   * first moment, never the tool's directions to the model (how to read it, stop it).
   */
  private jobStart(job: JobStarted, all: string[], width: number): string[] {
    const t = this.theme;
    const head =
      job.state === "running"
        ? t.dim(`  ⎿ ${job.id} running in the background (pid ${job.pid})`)
        : job.state === "started"
          ? t.dim(`  ⎿ ${job.id} started in the background (pid ${job.pid})`)
          : (this.state === "error" ? t.error : t.dim)(`  ⎿ ${job.id} ended at once: ${job.exitCode === null ? "stopped" : `exit ${job.exitCode}`}`);
    const printed = jobPrinted(all);
    const shown = printed.slice(0, LIVE_OUTPUT_LINES).map((line) => t.dim(clip(`    │ ${line}`, width)));
    if (printed.length > LIVE_OUTPUT_LINES) shown.push(t.dim(`    … ${counted(printed.length - LIVE_OUTPUT_LINES, "more line", "more lines")}`));
    return [clip(head, width), ...shown];
  }

  /** A failed call: its first lines and its last one, which says why (a command cancelled, timed out). */
  private failure(all: string[], width: number): string[] {
    const t = this.theme;
    const cut = all.length > ERROR_LINES;
    const shown = cut ? [...all.slice(0, ERROR_LINES - 1), t.dim(`… ${counted(all.length - ERROR_LINES, "more line", "more lines")}`), all.at(-1) ?? ""] : all;
    // Wrapped, not cut at the edge: the end of a reason is often what to do about it.
    return shown.flatMap((line, i) => hanging(line, width, i === 0 ? "  ⎿ " : "    ", "    ").slice(0, FAILURE_ROWS)).map(t.error);
  }

  /** Each file's diff: its head line, then its lines; `indent` further in for a helper's call. */
  private drawDiffs(diffs: readonly FileDiff[], width: number, indent = ""): string[] {
    const t = this.theme;
    const out: string[] = [];
    for (const diff of diffs) {
      const lines = fittedDiff(diff.oldText ?? "", diff.newText, DIFF_LINES);
      const added = lines.filter((l) => l.startsWith("+")).length;
      const removed = lines.filter((l) => l.startsWith("-")).length;
      out.push(t.dim(clip(`${indent}  ⎿ ${plain(this.shown(diff.path))}${diff.oldText === null ? " (new)" : ""}: +${added} −${removed}`, width)));
      for (const line of lines.slice(0, DIFF_LINES)) {
        const paint = line.startsWith("+") ? t.added : line.startsWith("-") ? t.removed : line.startsWith("@@") ? t.accent : t.dim;
        out.push(paint(clip(`${indent}    ${line}`, width)));
      }
      if (lines.length > DIFF_LINES) out.push(t.dim(`${indent}    … ${counted(lines.length - DIFF_LINES, "more diff line", "more diff lines")}`));
    }
    return out;
  }
}

/**
 * A fetched page on one line: its title and what it was (type, size, lines of text), from the
 * result's head ("Fetched URL (text/html, 898 bytes)", "Title: …"); the head as it is when the page
 * has no title or came from elsewhere (a redirect: the URL it came from matters then).
 */
function fetchedLine(all: string[], dim: (text: string) => string): string {
  const head = all[0] ?? "";
  const title = all.slice(1, 3).find((line) => line.startsWith("Title: "))?.slice("Title: ".length).trim();
  const facts = /\(([^()]*)\)$/.exec(head)?.[1];
  const redirected = all[1]?.startsWith("(redirected from ") ?? false;
  const count = counted(all.length, "line");
  if (!title || !facts || redirected) return `${head}${dim(` (${count})`)}`;
  return `${title}${dim(` · ${facts}, ${count}`)}`;
}

/** A background job bash started: live from the result's meta; from its text in a resumed session, where only that was kept (and it runs no more). */
type JobStarted = { id: string; pid: string; state: "running" | "started" | "ended"; exitCode: number | null };

function jobStarted(meta: Record<string, unknown>, all: string[]): JobStarted | null {
  if (typeof meta.jobId === "string") {
    const exitCode = typeof meta.exitCode === "number" ? meta.exitCode : null;
    return { id: meta.jobId, pid: String(meta.pid), state: meta.state === "running" ? "running" : "ended", exitCode };
  }
  const started = /^Started (job\d+) \(pid (\d+)\) in the background\.$/.exec(all[0] ?? "");
  if (!started?.[1] || !started[2]) return null;
  const exited = new RegExp(`^${started[1]} exited with code (\\d+)`).exec(all[1] ?? "");
  return { id: started[1], pid: started[2], state: exited ? "ended" : "started", exitCode: exited ? Number(exited[1]) : null };
}

/**
 * A library search on one line: how many passages and their sources ("docs/spec.md:5-7, …"),
 * from the result's "[1] SOURCE (score S)" heads; its first line as it is when there are none.
 */
function libraryLine(all: string[], dim: (text: string) => string): string {
  const sources = all.flatMap((line) => /^\[\d+\] (.+) \(score [\d.]+\)$/.exec(line)?.[1] ?? []);
  if (sources.length === 0) return all[0] ?? "";
  return `${sources.length === 1 ? "1 passage" : `${sources.length} passages`}${dim(`: ${sources.join(", ")}`)}`;
}

/** The job's own output in bash's start result: the lines after "jobN is running (0 s); output A–B of N:" up to the tool's notes. */
function jobPrinted(all: string[]): string[] {
  const from = all.findIndex((line) => /^job\d+ .*; output \d+–\d+ of \d+:$/.test(line));
  if (from < 0) return [];
  const rest = all.slice(from + 1);
  const to = rest.findIndex((line) => line.startsWith("Read its new output with job ") || line.startsWith("[… "));
  return to < 0 ? rest : rest.slice(0, to);
}

/** A line cut to what a screen WIDTH wide could show of it, before the render wraps or truncates it. */
export function clip(line: string, width: number): string {
  return line.length > width * 4 ? line.slice(0, width * 4) : line;
}
