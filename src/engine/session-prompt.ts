import { gitStatus } from "./git-status.ts";
import { type PersonalSettings, sessionPrompt } from "./instructions.ts";

/** What a session's system prompt is made from, asked when it is made. */
export type PromptSource = {
  root: string;
  cwd: string;
  configDir: string;
  /** The person's settings (an instance's personalization may be read from the store first). */
  settings(): PersonalSettings | Promise<PersonalSettings>;
};

/**
 * A session's system prompt, made once (instructions.ts). `start()` sets its slow part going — the
 * git status, a process — as the session is created, so that the first step finds it done instead
 * of waiting on it; the rest (instruction files, the person's settings) is read at the first step,
 * as before.
 */
export class SessionPrompt {
  private git: Promise<string | null> | null = null;
  private made: Promise<string> | null = null;

  constructor(private readonly source: () => PromptSource) {}

  start(): void {
    this.git ??= gitStatus(this.source().root);
  }

  text(): Promise<string> {
    this.made ??= this.make();
    return this.made;
  }

  private async make(): Promise<string> {
    const source = this.source();
    this.start();
    const settings = await source.settings();
    return sessionPrompt({ root: source.root, cwd: source.cwd }, settings, source.configDir, this.git ?? Promise.resolve(null));
  }
}
