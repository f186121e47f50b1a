import type { Paths } from "../config/paths.ts";
import type { Config, Effort, Mode } from "../config/schema.ts";
import type { ModelSource } from "../model/resolved.ts";
import type { RetryPolicy } from "../model/retry.ts";
import type { ProtectedPaths } from "../project/protected.ts";
import type { Db } from "../store/db.ts";
import type { CodeIndexBackend } from "../tools/code-search-backend.ts";
import type { Capabilities, CommandSetup, Tool } from "../tools/tool.ts";
import type { FollowedProjects } from "./followed-projects.ts";
import type { EngineLanguageServers } from "./language-servers.ts";
import type { PersonalSettings } from "./instructions.ts";
import type { ShownBlock } from "./records.ts";
import type { TurnAnswer } from "./turn-queue.ts";

/** What every session of an engine is made with: the store, the config, the models and the tools. */
export type SessionDeps = {
  db: Db;
  paths: Paths;
  config: Config;
  personal?: () => PersonalSettings | Promise<PersonalSettings>;
  models: ModelSource;
  tools: readonly Tool[];
  protectedPaths: ProtectedPaths;
  /** The projects the engine follows for undo, shared by its sessions and no other engine's. */
  projects: FollowedProjects;
  /** How tools start commands (their environment, secrets left out, and the dirs a sandbox hides) and what fetch may reach. */
  commands: CommandSetup;
  web: Capabilities["web"];
  library?: Capabilities["library"];
  /** The code indexes of the projects (code_search); absent: none is indexed. */
  code?: CodeIndexBackend;
  /** The process's language servers (src/lsp/ behind them, loaded at first use). */
  languageServers?: EngineLanguageServers;
  retry?: Partial<RetryPolicy>;
  /** Model calls a turn may make before it stops with max_turn_requests. */
  maxSteps?: number;
  onFileUse?: (root: string, path: string) => void;
};

export type Attachment = { name: string; mimeType: string; size: number; path: string };

export type PromptInput = {
  /** What the model is sent. */
  text: string;
  /** What the person typed, when it differs (a command's name). */
  display?: string;
  turnId?: string;
  attachments?: Attachment[];
  /** The person's blocks as their editor showed them (records.ts ShownBlock), stored with their message for session/load. */
  blocks?: ShownBlock[];
  /** A model for this prompt only (a command's); the session's comes back afterwards. */
  model?: string;
  effort?: Effort;
  /** The command the prompt was, said in its answer. */
  command?: string;
  /** A mode the session takes when the turn starts (a command's: /plan with a task), and keeps. */
  mode?: Mode;
  /** `mode` only lowers the session's as the turn starts, never raises it (a project's command file's). */
  modeOnlyLowers?: boolean;
  /** The highest mode this turn runs in, whatever the session's (a web prompt in a terminal's session: remote.max_mode). */
  maxMode?: Mode;
};

export type ActionRun = () => Promise<Record<string, unknown>> | Record<string, unknown>;

/** A turn admitted, as its caller's ticket: run it once as a prompt or an action, or abandon it. */
export type TurnTicket = {
  readonly turnId: string;
  /** Aborted when the session is cancelled while the turn is prepared: what preparing it waits on stops (the turn then answers cancelled). */
  readonly signal: AbortSignal;
  prompt(input: Omit<PromptInput, "turnId">): Promise<TurnAnswer>;
  action(run: ActionRun, command?: string): Promise<TurnAnswer>;
  /** The turn could not be prepared (a block refused): it is forgotten, and a re-send meanwhile gets this error. */
  abandon(error: unknown): void;
};

export type SessionStatus = { busy: boolean; turnId: string | null; queued: string[]; lastTurnId: string | null };
