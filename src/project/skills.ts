import { lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, normalize, sep } from "node:path";
import { z } from "zod";
import { lazily } from "../lazy.ts";
import { isInside } from "../paths.ts";
import { realPath } from "../real-path.ts";
import { firstLine, isDir, listDir, MAX_DEFINITION_BYTES } from "./definition-dirs.ts";
import { FrontmatterError, parseFrontmatter } from "./frontmatter.ts";
import { SECRET_NAMES } from "./protected.ts";

/**
 * Skills: folders holding a SKILL.md (Claude Code's format: frontmatter `name` and `description`,
 * other keys tolerated) and whatever files it refers to. The person's (the config dir's `skills/`),
 * then the project's `.claude/skills/` and `.agent/skills/`: a later one of the same name wins.
 * The person types one as a /command; the model loads one with the `skill` tool.
 */
export type Skill = {
  name: string;
  description: string;
  hint?: string;
  body: string;
  /** The SKILL.md (absolute). */
  path: string;
  /** Its folder (absolute). */
  dir: string;
  /** False when its frontmatter says `disable-model-invocation: true`: only the person runs it. */
  forModel: boolean;
  /** False when its frontmatter says `user-invocable: false`: not a /command, only the model loads it. */
  forPerson: boolean;
};

/** The skills found, and the folders left out and why. */
export type SkillSet = { skills: Skill[]; notices: string[] };

/** The largest SKILL.md read, as for command files: one larger would fill a small model's whole window, and is left out. */
export const MAX_SKILL_BYTES = MAX_DEFINITION_BYTES;

export const SKILL_NAME = /^[A-Za-z0-9][\w-]*$/;

/** A SKILL.md's frontmatter, made when a skill is found (most projects have none). */
const frontmatter = lazily(() =>
  z.looseObject({
    name: z.string().optional(),
    description: z.string().optional(),
    "argument-hint": z.string().optional(),
    argument_hint: z.string().optional(),
    "disable-model-invocation": z.boolean().optional(),
    "user-invocable": z.boolean().optional(),
  }),
);

/** Where skills are looked for, the weakest first. */
function skillDirs(opts: { root: string; configDir: string }): { dir: string; project: boolean }[] {
  return [
    { dir: join(opts.configDir, "skills"), project: false },
    { dir: join(opts.root, ".claude", "skills"), project: true },
    { dir: join(opts.root, ".agent", "skills"), project: true },
  ];
}

/** Every skill of a project and of the person, by name (a project's wins), sorted by name. */
export function findSkills(opts: { root: string; configDir: string }): SkillSet {
  const notices: string[] = [];
  const found = new Map<string, Skill>();
  for (const { dir, project } of skillDirs(opts)) {
    for (const skill of readSkillDir(dir, project ? opts.root : null, notices)) found.set(skill.name, skill);
  }
  return { skills: [...found.values()].sort((a, b) => a.name.localeCompare(b.name)), notices };
}

/** The skills in one folder; `root`: the project they must stay inside (a SKILL.md linked out of it is left out), null for the person's. */
function readSkillDir(dir: string, root: string | null, notices: string[]): Skill[] {
  const out: Skill[] = [];
  for (const entry of listDir(dir, notices)) {
    if (entry.startsWith(".")) continue;
    const folder = join(dir, entry);
    if (!isDir(folder)) continue;
    const path = join(folder, "SKILL.md");
    const size = fileSize(path);
    if (size === null) {
      notices.push(`${folder} is skipped: a skill folder needs a SKILL.md`);
      continue;
    }
    if (size > MAX_SKILL_BYTES) {
      notices.push(`${path} is skipped: it is ${size} bytes, more than the ${MAX_SKILL_BYTES / 1024} KiB a skill may have`);
      continue;
    }
    if (root !== null && !isInside(realPath(path), realPath(root))) {
      notices.push(`${path} is skipped: it leads outside the project`);
      continue;
    }
    const read = readSkillFile(path, notices);
    if (!read) continue;
    const name = read.meta.name ?? entry;
    if (!SKILL_NAME.test(name)) {
      notices.push(`${path} is skipped: its name "${name}" is not one word of letters, digits, - and _`);
      continue;
    }
    const hint = read.meta["argument-hint"] ?? read.meta.argument_hint;
    out.push({
      name,
      description: read.meta.description?.trim() || firstLine(read.body) || `the ${name} skill`,
      ...(hint ? { hint } : {}),
      body: read.body,
      path,
      dir: folder,
      forModel: read.meta["disable-model-invocation"] !== true,
      forPerson: read.meta["user-invocable"] !== false,
    });
  }
  return out;
}

function readSkillFile(path: string, notices: string[]): { meta: z.infer<ReturnType<typeof frontmatter>>; body: string } | null {
  try {
    const parsed = parseFrontmatter(readFileSync(path, "utf8"));
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

/** The most files of a skill's folder listed for the model. */
const MAX_SKILL_FILES = 100;
const MAX_DEPTH = 4;
const SECRET = SECRET_NAMES.map((pattern) => new Bun.Glob(pattern));

/** Whether a name is one a skill's files never show: hidden, or a secret's (an env file, a key). */
function leftOut(name: string): boolean {
  const lower = name.toLowerCase();
  return name.startsWith(".") || SECRET.some((glob) => glob.match(lower));
}

/**
 * The other files of a skill's folder, relative to it, shallow levels first, at most
 * MAX_SKILL_FILES of them (`more`: some were not listed). Links are listed, never followed.
 */
export function skillFiles(skill: Skill): { files: string[]; more: boolean } {
  const files: string[] = [];
  let level = [""];
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const rel of level) {
      let names: string[];
      try {
        names = readdirSync(join(skill.dir, rel)).sort();
      } catch {
        continue;
      }
      for (const name of names) {
        if (leftOut(name)) continue;
        const child = rel ? `${rel}/${name}` : name;
        const info = lstat(join(skill.dir, child));
        if (info?.isDirectory()) next.push(child);
        else if (info && child !== "SKILL.md") {
          if (files.length === MAX_SKILL_FILES) return { files, more: true };
          files.push(child);
        }
      }
    }
    level = next;
  }
  return { files, more: level.length > 0 };
}

/**
 * A file of a skill's folder (`file` relative to it), as text; refused, with why, when it is not
 * one the skill may hand out (outside the folder, through a link too, hidden, a secret, binary).
 */
export function readSkillPart(skill: Skill, file: string): { text: string } | { refused: string } {
  const rel = normalize(file).replace(/^(\.\/)+/, "");
  const path = join(skill.dir, rel);
  if (!isInside(path, skill.dir) || path === skill.dir) return { refused: `${file} is not a file of the skill ${skill.name}` };
  if (rel.split(sep).some(leftOut)) return { refused: `${file} is hidden or a secret: a skill does not hand it out` };
  if (!isInside(realPath(path), realPath(skill.dir))) return { refused: `${file} leads outside the skill's folder` };
  const size = fileSize(path);
  if (size === null) return { refused: `${file} is not a file of the skill ${skill.name}: its files are listed when it is loaded` };
  if (size > MAX_SKILL_BYTES) return { refused: `${file} is ${size} bytes, more than the ${MAX_SKILL_BYTES / 1024} KiB a skill's file may have` };
  const bytes = readFileSync(path);
  if (bytes.includes(0)) return { refused: `${file} is a binary file` };
  return { text: bytes.toString("utf8") };
}

/** A regular file's size (links followed), or null when there is none. */
function fileSize(path: string): number | null {
  try {
    const info = statSync(path);
    return info.isFile() ? info.size : null;
  } catch {
    return null;
  }
}

function lstat(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}
