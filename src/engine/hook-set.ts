import type { HookEvent, HooksConfig } from "../config/schema.ts";
import type { CommandSetup } from "../tools/tool.ts";
import { type HookVerdict, readVerdict } from "./hook-output.ts";
import { runHook } from "./hook-run.ts";
import { claudeToolName } from "../project/claude-tool-names.ts";

/** What of one hook's words reaches the model (Claude Code's limit on additionalContext). */
const SAID_MAX = 10_000;
/** A hook's time limit when its entry names none (Claude Code's). */
const DEFAULT_TIMEOUT_S = 60;

/** One hook as a session runs it, with where it was written (config.yaml, a project's settings file). */
export type HookSpec = { event: HookEvent; matcher: string | undefined; command: string; timeoutS: number; source: string };

/** The hooks of a `hooks:` mapping, in order, each said to come from SOURCE. */
export function hookSpecs(hooks: HooksConfig, source: string): HookSpec[] {
  return Object.entries(hooks).flatMap(([event, groups]) =>
    (groups ?? []).flatMap((group) =>
      group.hooks.map((hook): HookSpec => ({ event: event as HookEvent, matcher: group.matcher, command: hook.command, timeoutS: hook.timeout ?? DEFAULT_TIMEOUT_S, source })),
    ),
  );
}

/**
 * Whether MATCHER takes VALUE (a tool name, a SessionStart source, a notification type): absent,
 * "" and "*" take all; names joined by | are matched whole; anything else is a regular expression
 * found anywhere in the value, as Claude Code reads it.
 */
export function matches(matcher: string | undefined, value: string): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  const theirs = claudeToolName(value);
  const names = [value, ...(theirs ? [theirs] : [])];
  if (/^[A-Za-z0-9_|]+$/.test(matcher)) {
    const listed = matcher.split("|");
    return names.some((name) => listed.includes(name));
  }
  try {
    const pattern = new RegExp(matcher);
    return names.some((name) => pattern.test(name));
  } catch {
    return false;
  }
}

/** Where a session's hooks run and whom they tell. */
export type HookPlace = {
  sessionId: string;
  root: string;
  cwd: () => string;
  mode: () => string;
  setup: CommandSetup;
  /** Brings the session's transcript up to date for a hook to read; its path, or null when it could not be written. */
  transcript(): string | null;
  notice(message: string, level: "info" | "warn"): void;
};

/** The verdicts of an event's hooks, each with the hook's name for what is said of it. */
export type Verdicts = { name: string; verdict: HookVerdict }[];

/** What is said of a session's hooks: a project's that do not run, a file that does not read. */
export type HookNote = { message: string; level: "info" | "warn" };

/**
 * The hooks a session has now, and what is to be said of them. Asked before every use, so a
 * changed settings file, a script rewritten since its approval or `lembas untrust` holds at once;
 * it must be cheap (stat the files, read again only what changed).
 */
export type HookSource = () => { specs: HookSpec[]; notes: HookNote[] };

/**
 * A session's hooks (config.yaml's, and a trusted project's the person approved): run for an
 * event, those whose matcher takes `value`, at once; the same command line only once. A hook that
 * fails, hangs or prints what cannot be read is a notice naming it; the turn goes on.
 */
export class SessionHooks {
  /** The notes said so far: each is said once a session. */
  private readonly said = new Set<string>();
  /** Whether someone listens yet: from the session's first prompt. */
  private listening = false;
  private last: HookSpec[] = [];
  /** Runs not ended yet (a Notification's, SessionEnd's are not waited for where they start). */
  private readonly running = new Set<Promise<Verdicts>>();

  constructor(
    private readonly source: HookSource,
    private readonly place: HookPlace,
  ) {}

  /** Says what is to be said of the hooks and was not yet; from now on, as it comes up. */
  sayNotes(): void {
    this.listening = true;
    this.current();
  }

  /** Every hook, in order (for /hooks). */
  list(): readonly HookSpec[] {
    return this.current();
  }

  has(event: HookEvent): boolean {
    return this.current().some((s) => s.event === event);
  }

  private current(): HookSpec[] {
    let now: ReturnType<HookSource>;
    try {
      now = this.source();
    } catch {
      // The store closing under a last SessionEnd: the hooks last read still stand.
      return this.last;
    }
    this.last = now.specs;
    if (!this.listening) return now.specs;
    for (const note of now.notes) {
      if (this.said.has(note.message)) continue;
      this.said.add(note.message);
      this.place.notice(note.message, note.level);
    }
    return now.specs;
  }

  /** Resolves once every run started so far has ended: the engine's stop waits for it. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  run(event: HookEvent, value: string | null, fields: Record<string, unknown>, signal: AbortSignal): Promise<Verdicts> {
    const run = this.runNow(event, value, fields, signal);
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
    return run;
  }

  private async runNow(event: HookEvent, value: string | null, fields: Record<string, unknown>, signal: AbortSignal): Promise<Verdicts> {
    const chosen = this.current().filter((s) => s.event === event && (value === null || matches(s.matcher, value)));
    const unique = chosen.filter((s, i) => chosen.findIndex((o) => o.command === s.command) === i);
    if (unique.length === 0) return [];
    const { place } = this;
    const transcript = place.transcript();
    const input = JSON.stringify({ session_id: place.sessionId, transcript_path: transcript ?? "", cwd: place.cwd(), permission_mode: place.mode(), hook_event_name: event, ...fields });
    const env = { LEMBAS_PROJECT_DIR: place.root, CLAUDE_PROJECT_DIR: place.root, LEMBAS_SESSION_ID: place.sessionId };
    const runs = unique.map(async (spec) => {
      const run = await runHook({ command: spec.command, input, cwd: place.cwd(), root: place.root, setup: place.setup, env, shown: transcript ? [transcript] : [], timeoutMs: spec.timeoutS * 1000, signal });
      if (run.unsandboxed) place.notice(run.unsandboxed, "warn");
      const verdict = readVerdict(event, run);
      const name = hookName(spec);
      if (verdict.problem && !signal.aborted) place.notice(`${name} ${verdict.problem}`, "warn");
      if (verdict.message) place.notice(`${name}: ${verdict.message}`, "info");
      return { name, verdict };
    });
    return Promise.all(runs);
  }
}

/** How a notice names a hook: its event, its command line (cut short) and where it was written. */
export function hookName(spec: HookSpec): string {
  const line = spec.command.replace(/\s+/g, " ").trim();
  const short = line.length > 60 ? `${line.slice(0, 59)}…` : line;
  return `the ${spec.event} hook "${short}" (${spec.source})`;
}

/** The reasons of the hooks that blocked, one a line; null when none did. */
export function blocked(verdicts: Verdicts): string | null {
  const reasons = verdicts.flatMap((v) => (v.verdict.block !== undefined ? [cut(v.verdict.block)] : []));
  return reasons.length > 0 ? reasons.join("\n") : null;
}

/** What the hooks added for the model, one a paragraph; null when nothing. */
export function addedContext(verdicts: Verdicts): string | null {
  const texts = verdicts.flatMap((v) => (v.verdict.context ? [cut(v.verdict.context)] : []));
  return texts.length > 0 ? texts.join("\n\n") : null;
}

/** The first `continue: false` of the hooks: why the turn stops; null when none said so. */
export function stopped(verdicts: Verdicts): string | null {
  return verdicts.find((v) => v.verdict.stop !== undefined)?.verdict.stop ?? null;
}

function cut(text: string): string {
  return text.length > SAID_MAX ? `${text.slice(0, SAID_MAX)}\n[… ${text.length - SAID_MAX} characters of the hook's output left out …]` : text;
}
