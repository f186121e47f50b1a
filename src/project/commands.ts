import { basename, join } from "node:path";
import { z } from "zod";
import { type Effort, effortSchema, type Mode, modeSchema } from "../config/mode-effort.ts";
import { lazily } from "../lazy.ts";
import { FrontmatterError, parseFrontmatter } from "./frontmatter.ts";
import { isInside } from "../paths.ts";
import { realPath } from "../real-path.ts";
import { firstLine, listDir, readDefinitionText } from "./definition-dirs.ts";
import { isProtected, type ProtectedPaths, protectedPaths } from "./protected.ts";
import { findSkills } from "./skills.ts";

/**
 * Slash commands shared by every front end: the built-ins, custom commands (.agent/commands and
 * the config dir's commands/, Markdown with frontmatter) and skills (skills.ts: .agent/skills/<name>/SKILL.md,
 * .claude/skills/ and the config dir's skills/). A command is an action (it does something and sends nothing to the
 * model) or a prompt (its text is sent, shown in the transcript as typed).
 */
export type CommandKind = "builtin" | "custom" | "skill";

export type CommandInfo = { name: string; description: string; hint?: string; kind: CommandKind };

/** A custom command or skill as read from its file; `project`: a project's command file, whose mode may only lower the session's. */
type Defined = CommandInfo & { body: string; model?: string; mode?: Mode; effort?: Effort; path: string; project?: true };

/** A project's commands in the spec's order, and what was skipped (a broken command file) and why. */
export type CommandSet = { all: (CommandInfo & Partial<Defined>)[]; notices: string[] };

export type Invocation =
  | { type: "action"; name: "compact" | "undo" | "plan"; args: string }
  | { type: "review"; name: "review"; args: string }
  | { type: "prompt"; name: string; text: string; display: string; mode?: Mode; modeOnlyLowers?: true; model?: string; effort?: Effort };

/** The built-ins, in the spec's order. */
export const BUILTIN_COMMANDS: readonly CommandInfo[] = [
  { name: "compact", description: "Summarise the conversation so far to free the context", kind: "builtin" },
  { name: "plan", description: "Switch to plan mode, or plan a task: /plan <task>", hint: "<task>", kind: "builtin" },
  { name: "undo", description: "Undo the last turn: its file changes and its messages", kind: "builtin" },
  { name: "review", description: "Review the uncommitted changes, or those since a branch", hint: "head | <branch>", kind: "builtin" },
  { name: "changelog", description: "Update CHANGELOG.md from the changes since its last entry", kind: "builtin" },
  { name: "init", description: "Write or update AGENTS.md: how to build, test and work in this project", kind: "builtin" },
  { name: "continue", description: "Continue where the last turn left off", kind: "builtin" },
];

/**
 * Names the terminal UI keeps for its own screens: never listed, and a custom command or skill
 * named like one is not a command (the built-in wins in the TUI).
 */
export const TUI_COMMANDS = new Set([
  "sessions", "settings", "theme", "login", "logout", "quit", "exit", "help", "model", "models", "effort", "mode",
  "clear", "new", "resume", "share", "unshare", "usage", "delete", "rename", "copy", "export", "status", "editor",
  "personality", "instructions", "library", "doctor", "keys", "trust", "compact", "plan", "undo", "review",
  "changelog", "init", "continue", "hooks", "permissions", "rewind", "fork", "agents", "vim",
]);

/** A command file's frontmatter, made when a project has one (most have none). */
const frontmatter = lazily(() =>
  z.looseObject({
    description: z.string().optional(),
    "argument-hint": z.string().optional(),
    argument_hint: z.string().optional(),
    name: z.string().optional(),
    model: z.string().optional(),
    mode: modeSchema().optional(),
    effort: effortSchema().optional(),
  }),
);

/**
 * Reads every command available in a project: built-ins, then custom commands, then skills. The
 * project's command files (checked in: anyone's) are read only when they are the project's own
 * regular files, not protected, and named like no built-in nor any of the person's own commands:
 * `protectedPaths` judges them (config.yaml's list; absent: the built-in one).
 */
export function loadCommands(opts: { root: string; configDir: string; protectedPaths?: ProtectedPaths }): CommandSet {
  const notices: string[] = [];
  const custom = new Map<string, Defined>();
  for (const command of readCommandDir(join(opts.configDir, "commands"), null, notices)) custom.set(command.name, command);
  const project = { root: opts.root, rules: opts.protectedPaths ?? null };
  for (const command of readCommandDir(join(opts.root, ".agent", "commands"), project, notices)) {
    const own = custom.get(command.name);
    if (own) notices.push(`${command.path} is skipped: /${command.name} is your own command (${own.path})`);
    else custom.set(command.name, command);
  }
  // What findSkills left out the engine says, once a session, to every front end (engine/session-prompt.ts).
  const found = findSkills(opts);
  // A skill named like a terminal screen is not a command (the model may still load it); nor one that says it is only the model's.
  const skills = found.skills
    .filter((s) => s.forPerson && !TUI_COMMANDS.has(s.name))
    .map((s): Defined => ({ name: s.name, kind: "skill", description: s.description, ...(s.hint ? { hint: s.hint } : {}), body: s.body, path: s.path }));
  const all = [
    ...BUILTIN_COMMANDS,
    ...[...custom.values()].sort((a, b) => a.name.localeCompare(b.name)),
    ...skills.filter((s) => !custom.has(s.name)),
  ];
  return { all, notices };
}

const NAME = /^[A-Za-z0-9][\w-]*$/;

/** Where a project's command files must stay, and what they must not be. */
type ProjectBounds = { root: string; rules: ProtectedPaths | null };

/** The commands of one folder; `project`: the bounds of a project's folder, null for the person's own. */
function readCommandDir(dir: string, project: ProjectBounds | null, notices: string[]): Defined[] {
  const out: Defined[] = [];
  for (const file of listDir(dir, notices).filter((f) => f.endsWith(".md"))) {
    const name = basename(file, ".md");
    if (!NAME.test(name)) continue;
    const path = join(dir, file);
    if (TUI_COMMANDS.has(name)) {
      notices.push(`${path} is skipped: /${name} is lembas's own command`);
      continue;
    }
    const outside = project ? leftOut(path, project) : null;
    if (outside) {
      notices.push(`${path} is skipped: ${outside}`);
      continue;
    }
    const read = readDefined(path, notices);
    if (!read) continue;
    out.push({
      name,
      kind: "custom",
      description: read.meta.description ?? firstLine(read.body) ?? `/${name}`,
      ...hintOf(read.meta),
      body: read.body,
      path,
      ...(project ? { project: true } : {}),
      ...(read.meta.model ? { model: read.meta.model } : {}),
      ...(read.meta.mode ? { mode: read.meta.mode } : {}),
      ...(read.meta.effort ? { effort: read.meta.effort } : {}),
    });
  }
  return out;
}

/** Why a project's command file is not read: it leads out of the project (a link), or it is protected (a secret, .git, the hooks' settings); null when neither. */
function leftOut(path: string, project: ProjectBounds): string | null {
  const real = realPath(path);
  const root = realPath(project.root);
  if (!isInside(real, root)) return "it leads outside the project";
  return isProtected(real, root, project.rules ?? builtInRules()) ? "it is a protected path" : null;
}

/** The built-in protected paths, for a caller that has no config.yaml's list at hand. */
const builtInRules = lazily(() => protectedPaths([], []));

function readDefined(path: string, notices: string[]): { meta: z.infer<ReturnType<typeof frontmatter>>; body: string } | null {
  const read = readDefinitionText(path, "a command file");
  if ("skipped" in read) {
    notices.push(`${path} is skipped: ${read.skipped}`);
    return null;
  }
  try {
    const parsed = parseFrontmatter(read.text);
    const meta = frontmatter().safeParse(parsed.meta);
    if (!meta.success) {
      const issue = meta.error.issues[0];
      notices.push(`${path} is skipped: ${issue?.path.join(".")}: ${issue?.message}`);
      return null;
    }
    return { meta: meta.data, body: parsed.body.trim() };
  } catch (error) {
    notices.push(`${path} is skipped: ${error instanceof FrontmatterError ? error.message : "it cannot be read"}`);
    return null;
  }
}

function hintOf(meta: z.infer<ReturnType<typeof frontmatter>>): { hint?: string } {
  const hint = meta["argument-hint"] ?? meta.argument_hint;
  return hint ? { hint } : {};
}

/** The commands as ACP's available_commands_update lists them. */
export function availableCommands(set: CommandSet) {
  return set.all.map((c) => ({
    name: c.name,
    description: c.description,
    ...(c.hint ? { input: { hint: c.hint } } : {}),
    _meta: { lembas: { kind: c.kind } },
  }));
}

/** A fingerprint of a set, to tell whether it changed after a turn. */
export function commandsKey(set: CommandSet): string {
  return set.all.map((c) => `${c.kind}:${c.name}:${c.description}:${c.hint ?? ""}`).join("\n");
}

const BUILTIN_PROMPTS: Record<string, (args: string) => string> = {
  changelog: (args) =>
    `Update CHANGELOG.md (create it if the project has none) with what changed since its last entry: read it and the git history since then (git log, git diff), and add a concise entry in the file's own style, grouped the way it groups changes.${args ? `\n\n${args}` : ""}`,
  init: (args) =>
    `Write AGENTS.md for this project (or update the one there is): read the project first, then say briefly how to install, build, run and test it, its layout, its conventions and anything an agent must know to work in it. Keep it short and concrete; do not invent what you did not see.${args ? `\n\n${args}` : ""}`,
  continue: (args) => `Continue where you left off.${args ? ` ${args}` : ""}`,
};

/**
 * The command a prompt's text invokes, or null when it is not one (then the text goes to the model
 * as is, slash and all). Custom commands and skills expand their body; `$ARGUMENTS` takes the
 * arguments (without it, they follow the body).
 */
export function parseCommand(text: string, set: CommandSet = { all: [...BUILTIN_COMMANDS], notices: [] }): Invocation | null {
  const match = /^\/([A-Za-z0-9][\w:-]*)(?:[ \t]+([\s\S]*)|\n([\s\S]*))?$/.exec(text.trim());
  if (!match?.[1]) return null;
  const name = match[1];
  const args = (match[2] ?? match[3] ?? "").trim();
  const command = set.all.find((c) => c.name === name);
  if (!command) return null;
  const display = text.trim();
  if (command.kind === "builtin") {
    if (name === "compact" || name === "undo") return { type: "action", name, args };
    if (name === "plan") return args ? { type: "prompt", name, text: args, display, mode: "plan" } : { type: "action", name: "plan", args };
    if (name === "review") return { type: "review", name: "review", args };
    const prompt = BUILTIN_PROMPTS[name];
    return prompt ? { type: "prompt", name, text: prompt(args), display } : null;
  }
  const body = command.body ?? "";
  const expanded =
    command.kind === "skill"
      ? `Use the skill "${name}" (${command.path ?? name}):\n\n${body}${args ? `\n\nThe task: ${args}` : ""}`
      : body.includes("$ARGUMENTS")
        ? body.replaceAll("$ARGUMENTS", args)
        : `${body}${args ? `\n\n${args}` : ""}`;
  return {
    type: "prompt",
    name,
    text: expanded,
    display,
    ...(command.mode ? { mode: command.mode } : {}),
    // A project's file (a stranger's repo) may ask for less than the person gave the session, never more.
    ...(command.mode && command.project ? { modeOnlyLowers: true as const } : {}),
    ...(command.model ? { model: command.model } : {}),
    ...(command.effort ? { effort: command.effort } : {}),
  };
}
