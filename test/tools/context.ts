import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { z } from "zod";
import { ReadLedger } from "../../src/engine/read-ledger.ts";
import { protectedPaths, protectionJudge } from "../../src/project/protected.ts";
import { findSkills } from "../../src/project/skills.ts";
import { Jobs } from "../../src/tools/jobs.ts";
import { diskAccess, type FileAccess } from "../../src/tools/file-access.ts";
import type { PlanOutcome, Question, QuestionOutcome, SubAgentAnswer, TodoItem, Tool, ToolContext, ToolResult } from "../../src/tools/tool.ts";
import type { WebSearchResult } from "../../src/tools/capabilities.ts";

/** What a test's tool context saw the tools do. */
export type Recorded = {
  beforeChange: string[];
  progress: string[];
  todos: TodoItem[][];
  read: Set<string>;
  commands: number;
  asked: { questions: Question[]; why?: string }[];
  plans: { path: string; text: string }[];
  settingsSet: Record<string, string>[];
  /** The prompts the task tool handed to a helper. */
  helped: string[];
};

export type ContextOptions = {
  root?: string;
  cwd?: string;
  vision?: boolean;
  signal?: AbortSignal;
  ask?: (questions: Question[]) => QuestionOutcome;
  plan?: PlanOutcome;
  /** What a helper answers the task tool (default: a failure, there being none). */
  subAgent?: (prompt: string) => SubAgentAnswer;
  /** config.yaml's `protected:` globs, besides the built-in list. */
  protected?: string[];
  /** The commands' environment (default: this process's) and the dirs the sandbox hides from them (default: none, no sandbox). */
  env?: Record<string, string>;
  hidden?: string[];
  /** config's fetch.allow_private (default: false). */
  allowPrivate?: boolean | string[];
  /** The session's background jobs (default: a registry of its own, which the test stops). */
  jobs?: Jobs;
  /** The config dir whose skills/ the skill tool finds besides the project's (default: none). */
  configDir?: string;
  /** How files are read and written (default: the disk). */
  fileAccess?: FileAccess;
  /** What the session's web search finds (default: it has none). */
  search?: (query: string) => WebSearchResult;
};

/** A plain ToolContext over a real directory, with every capability, recording what the tools call. */
export function makeContext(opts: ContextOptions = {}): { ctx: ToolContext; rec: Recorded } {
  const root = opts.root ?? tempDir();
  const rec: Recorded = { beforeChange: [], progress: [], todos: [], read: new Set(), commands: 0, asked: [], plans: [], settingsSet: [], helped: [] };
  const ledger = new ReadLedger();
  const rules = protectedPaths(opts.protected ?? [], []);
  const settings = { model: "local/a" as string | null, effort: "medium", mode: "edit", models: ["local/a", "local/b"] };
  const ctx: ToolContext = {
    sessionId: "s1",
    callId: "c1",
    root,
    cwd: opts.cwd ?? root,
    signal: opts.signal ?? new AbortController().signal,
    progress: (text) => void rec.progress.push(text),
    files: {
      markRead: (path, content, from) => {
        rec.read.add(path);
        ledger.mark(path, content, from);
      },
      readState: (path, now) => ledger.state(path, now),
      protection: protectionJudge(root, rules),
    },
    changes: {
      before: async (path) => void rec.beforeChange.push(path),
      after: () => {},
    },
    fileAccess: opts.fileAccess ?? diskAccess,
    lsp: undefined,
    model: { vision: opts.vision ?? false },
    commands: {
      env: opts.env ?? processEnv(),
      hidden: opts.hidden ?? [],
      around: async (run) => {
        rec.commands++;
        return run();
      },
    },
    jobs: opts.jobs ?? new Jobs(),
    people: {
      ask: async (questions, why) => {
        rec.asked.push({ questions, ...(why ? { why } : {}) });
        return opts.ask ? opts.ask(questions) : { outcome: "nobody" };
      },
      submitPlan: async (path, text) => {
        rec.plans.push({ path, text });
        return opts.plan ?? { outcome: "nobody" };
      },
    },
    settings: {
      get: () => ({ ...settings }),
      set: async (change) => {
        rec.settingsSet.push({ ...change });
        if (change.model && !settings.models.includes(change.model)) throw new Error(`${change.model} is not a known model`);
        Object.assign(settings, change);
        return `Set ${Object.entries(change)
          .map(([k, v]) => `${k} to ${v}`)
          .join(", ")}.`;
      },
    },
    todos: { set: (todos) => void rec.todos.push(todos) },
    web: { allowPrivate: opts.allowPrivate ?? false },
    search: { web: async (query) => opts.search?.(query) ?? { problem: "no web search in this test" } },
    library: undefined,
    code: undefined,
    skills: { all: () => findSkills({ root, configDir: opts.configDir ?? join(root, ".no-config-dir") }).skills.filter((s) => s.forModel) },
    helpers: {
      subAgent: async (prompt) => {
        rec.helped.push(prompt);
        return opts.subAgent?.(prompt) ?? { text: "no helper in this test", isError: true, steps: 0, toolCalls: 0 };
      },
    },
  };
  return { ctx, rec };
}

function processEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

const made: string[] = [];

/** A fresh temp directory (its real path: /tmp may be a symlink), removed by cleanupTempDirs(). */
export function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "lembas-tools-")));
  made.push(dir);
  return dir;
}

export function cleanupTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Validates the input with the tool's schema (as the engine does), then runs it. */
export async function run<S extends z.ZodType>(tool: Tool<S>, input: z.input<S>, ctx: ToolContext): Promise<ToolResult> {
  return tool.execute(tool.schema.parse(input), ctx);
}
