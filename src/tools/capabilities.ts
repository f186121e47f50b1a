import type { Protection } from "../project/protected.ts";
import type { FileAccess } from "./file-access.ts";
import type { Skill } from "../project/skills.ts";
import type { PrivateRule } from "./address-guard.ts";
import type { Jobs } from "./jobs.ts";
import type { LibraryBackend } from "./library-backend.ts";
import type { CodeSearch } from "./code-search-backend.ts";
import type { LanguageServerAccess } from "./server-access.ts";

/** Whether the model has seen a file as it is now: never, as it is, or before someone changed it. */
export type ReadState = "unread" | "current" | "changed";

/**
 * What a web search found: the answer written from the results, the sources (title and URL) it
 * came from, and what ran it (the provider's tool, or the MCP tool); or why it could not run.
 */
export type WebSearchResult = { text: string; sources: { url: string; title: string }[]; via: string } | { problem: string };

/** A question for the person (ask_user). */
export type Question = {
  header: string;
  question: string;
  multiple: boolean;
  options: { label: string; description?: string; recommended?: boolean }[];
};
export type Answer =
  | { kind: "options"; labels: string[] }
  | { kind: "custom"; text: string }
  | { kind: "back"; text: string }
  | { kind: "skipped" };
export type QuestionOutcome = { outcome: "answered"; answers: Answer[] } | { outcome: "dismissed" } | { outcome: "nobody" };
export type PlanOutcome =
  | { outcome: "approve"; mode: "edit" | "manual" }
  | { outcome: "revise"; feedback: string }
  | { outcome: "dismissed" }
  | { outcome: "nobody" };

/** What a helper session (the task tool's) answered: its final text, and how far it went. */
export type SubAgentAnswer = { text: string; isError: boolean; steps: number; toolCalls: number };

export type TodoItem = { content: string; status: "pending" | "in_progress" | "completed"; priority?: "high" | "medium" | "low" };

/** The call itself, which every tool gets: whose it is, where it runs, its signal and its stream. */
export type ToolCallContext = {
  sessionId: string;
  callId: string;
  /** The project root (absolute): writes inside it are "inside the project". */
  root: string;
  /** The working directory relative paths resolve against (absolute, inside root or root itself). */
  cwd: string;
  signal: AbortSignal;
  /** Streams partial output (bash) to clients while the tool runs. */
  progress(text: string): void;
};

/** How the commands a tool starts (bash, MCP servers) run: their environment, and the dirs a sandbox hides from them. */
export type CommandSetup = { env: Record<string, string>; hidden: readonly string[] };

/**
 * What a tool may be given besides its call, one capability a member of its context: a tool
 * declares the ones it uses (`needs`) and is handed those and no others (engine/tool-context.ts).
 */
export type Capabilities = {
  /** The project's files as the model has seen them, and how each is protected. */
  files: {
    /**
     * Notes that the model has seen a file (absolute path), as it is now; `content` is what it saw
     * when the tool has it (a write's text), so the file need not be read again for its stamp.
     * `from: "held"`: the content came from the file's other holder (fileAccess), not the disk.
     */
    markRead(path: string, content?: string | Uint8Array, from?: "disk" | "held"): void;
    /**
     * Whether the model has seen the file as it is now: write and edit refuse "unread" and "changed".
     * `now` is the file's text as the tool just read it (from fileAccess or the disk): it is compared.
     */
    readState(path: string, now?: string): ReadState;
    /** How a path (absolute) is protected, or null: searches leave protected files out, listings secrets' names too. */
    protection(path: string): Protection | null;
  };
  /** Changing the project's files so that the turn can be undone. */
  changes: {
    /**
     * Must be called with a path (absolute) before the tool changes or deletes it. `held`: the
     * file's text as its other holder gave it (fileAccess), which is then what undo keeps.
     */
    before(path: string, held?: string): Promise<void>;
    /**
     * Must be called right after the tool wrote the path: what the turn left in it is stamped then,
     * not later. `held`: the text written when it went to the file's other holder, not the disk.
     */
    after(path: string, held?: string): void;
  };
  /** How files are read and written: the disk, or an editor's buffers where a front end set one. */
  fileAccess: FileAccess;
  /** The session's model as a tool that hands it images sees it: whether it takes them. */
  model: { vision: boolean };
  /**
   * Running commands (bash): their environment, the secrets left out (src/tools/environment.ts),
   * the dirs a sandbox hides from them (src/tools/sandbox.ts), and a wrap so that what a command
   * changed in the project can be undone.
   */
  commands: CommandSetup & { around<T>(run: () => Promise<T>): Promise<T> };
  /** The session's background jobs (bash's run_in_background, the job tool), stopped with the session. */
  jobs: Jobs;
  /** The person, where somebody can be asked. */
  people: {
    ask(questions: Question[], why?: string): Promise<QuestionOutcome>;
    submitPlan(path: string, text: string): Promise<PlanOutcome>;
  };
  /** The session's settings the `settings` tool reads and changes (within the limits). */
  settings: {
    get(): { model: string | null; effort: string; mode: string; models: string[] };
    set(change: { model?: string; effort?: string; mode?: string }): Promise<string>;
  };
  /** The session's todo list. */
  todos: { set(todos: TodoItem[]): void };
  /** What fetch may reach besides public addresses (config `fetch.allow_private`). */
  web: { allowPrivate: PrivateRule };
  /**
   * The session's web search (engine/search-route.ts): the provider's own search tool, or the MCP
   * tool config.yaml names. Given only where there is one (web_search is not offered elsewhere).
   */
  search: { web(query: string): Promise<WebSearchResult> };
  /** The person's library the `library` tool searches (undefined: none is configured). */
  library: LibraryBackend | undefined;
  /** The project's code index the `code_search` tool searches (undefined: it is not indexed). */
  code: CodeSearch | undefined;
  /** The project's language servers (undefined: none may start in this session). */
  lsp: LanguageServerAccess | undefined;
  /** The skills the model may load (project/skills.ts): the project's and the person's, as they are now. */
  skills: { all(): Skill[] };
  /**
   * Helper sessions (task): runs one on a narrower question, with its own context: the read-only
   * explorer with the session's model, or the custom agent named (its tools, model and prompt).
   */
  helpers: { subAgent(prompt: string, signal: AbortSignal, agent?: string): Promise<SubAgentAnswer> };
};

/** The name of one capability, as a tool lists it in `needs`. */
export type Need = keyof Capabilities;

/**
 * What a tool is handed while it runs: the call, and the capabilities `N` it declared. The tool
 * never reaches for globals, so it runs the same in a test, in the service and in a terminal.
 */
export type ToolContext<N extends Need = Need> = ToolCallContext & { [K in N]: Capabilities[K] };

/** How a session makes each capability it can give, called only for those a tool declared. */
export type CapabilityMakers = { [K in Need]: () => Capabilities[K] };

/** Whether a session that gives the capabilities `given` can serve a tool that declared `needs`. */
export function meetsNeeds(needs: readonly Need[], given: readonly Need[]): boolean {
  return needs.every((need) => given.includes(need));
}

/**
 * A tool's context: the call, and each capability in `needs` made by its maker, no other. A need
 * without a maker is a mistake of the caller (it offered a tool it cannot serve), so it throws.
 */
export function buildContext(call: ToolCallContext, needs: readonly Need[], makers: Partial<CapabilityMakers>): ToolContext {
  const context: Record<string, unknown> = { ...call };
  for (const need of needs) {
    const make = makers[need];
    if (!make) throw new Error(`This session cannot give a tool the "${need}" capability it declared.`);
    context[need] = make();
  }
  // Typed as every capability: the tool's own `execute` is typed with only those it declared.
  return context as ToolContext;
}
