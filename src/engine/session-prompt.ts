import { findSkills, type Skill } from "../project/skills.ts";
import { offersTools, type ResolvedModel } from "../model/resolved.ts";
import { gitStatus } from "./git-status.ts";
import { type PersonalSettings, type PromptInputs, sessionInputs, systemPrompt } from "./instructions.ts";
import { skillList } from "./skill-list.ts";
import { smallWindow } from "./toolset.ts";

/** What a session's system prompt is made from, asked when it is made. */
export type PromptSource = {
  root: string;
  cwd: string;
  configDir: string;
  /** The person's settings (an instance's personalization may be read from the store first). */
  settings(): PersonalSettings | Promise<PersonalSettings>;
  /** Says what was left out (a skill folder without SKILL.md), once a session, to every front end. */
  notice(message: string): void;
};

type Made = { inputs: PromptInputs; skills: readonly Skill[] };

/**
 * A session's system prompt, made once (instructions.ts), with the skills the model may load
 * listed for a model whose window holds them and that takes tools. `start()` sets its slow part
 * going — the git status, a process — as the session is created, so that the first step finds it
 * done instead of waiting on it; the rest (instruction files, skills, the person's settings) is
 * read at the first step, as before. The skills are read once too: the tools offered and the
 * prompt stay the same all session.
 */
export class SessionPrompt {
  private git: Promise<string | null> | null = null;
  private made: Promise<Made> | null = null;
  private readonly texts = new Map<boolean, Promise<string>>();

  constructor(private readonly source: () => PromptSource) {}

  start(): void {
    this.git ??= gitStatus(this.source().root);
  }

  /** The prompt for this model: with the skills' list unless its window is small or it takes no tools (it could not load one). */
  text(model: Pick<ResolvedModel, "contextLength" | "supportsTools">): Promise<string> {
    const listed = !smallWindow(model) && offersTools(model);
    let text = this.texts.get(listed);
    if (!text) {
      text = this.inputs().then(({ inputs, skills }) => systemPrompt({ ...inputs, skills: listed ? skillList(skills) : null }));
      this.texts.set(listed, text);
    }
    return text;
  }

  /** The skills the model may load in this session, as found when the prompt was made. */
  async skills(): Promise<readonly Skill[]> {
    return (await this.inputs()).skills.filter((s) => s.forModel);
  }

  private inputs(): Promise<Made> {
    this.made ??= this.make();
    return this.made;
  }

  private async make(): Promise<Made> {
    const source = this.source();
    this.start();
    const settings = await source.settings();
    const inputs = await sessionInputs({ root: source.root, cwd: source.cwd }, settings, source.configDir, this.git ?? Promise.resolve(null));
    const found = findSkills({ root: source.root, configDir: source.configDir });
    for (const notice of found.notices) source.notice(notice);
    return { inputs, skills: found.skills };
  }
}
