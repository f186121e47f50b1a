import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { lazily } from "../lazy.ts";
import { EFFORTS } from "../config/key-values.ts";
import type { Effort } from "../config/mode-effort.ts";
import { isInside } from "../paths.ts";
import { realPath } from "../real-path.ts";
import { lembasToolName } from "./claude-tool-names.ts";
import { MAX_DEFINITION_BYTES } from "./definition-dirs.ts";
import { FrontmatterError, parseFrontmatter } from "./frontmatter.ts";

/**
 * Custom agents: Markdown files in Claude Code's subagent format (frontmatter `name`,
 * `description`, `tools`, `disallowedTools`, `model`, `effort`; the body is the agent's system prompt). The person's
 * (the config dir's `agents/`), then the project's `.claude/agents/` and `.agent/agents/`: a later
 * one of the same name wins. The task tool hands a question to one by name.
 */
export type AgentFile = {
  name: string;
  description: string;
  /** The tools it names, as lembas names them (Claude Code's names mapped); null: no `tools` line (every tool the mode allows); []: none. */
  tools: string[] | null;
  /** The tools its `disallowedTools` takes away, as lembas names them. */
  disallowed: string[];
  /** The model it names; null: the turn's ("inherit" is read so too). */
  model: string | null;
  effort: Effort | null;
  /** Its system prompt: the file's body. */
  prompt: string;
  /** The file (absolute). */
  path: string;
  /** Where it was found, as a person reads it: "yours", "the project's .claude/agents", "the project's .agent/agents". */
  source: string;
  /** What is wrong with it, each a sentence: an agent with any cannot run, and the task tool says why. */
  problems: string[];
};

/** The largest agent file read (its body is a system prompt), as for command files and skills. */
const MAX_AGENT_BYTES = MAX_DEFINITION_BYTES;

const NAME = /^[A-Za-z0-9][\w-]*$/;

/** Claude Code's model names an agent file may carry ("inherit" aside, read as none). */
export const CLAUDE_MODEL_NAMES: ReadonlySet<string> = new Set(["sonnet", "opus", "haiku"]);

/** An agent file's frontmatter, made when an agent file is found (most projects have none). */
const frontmatter = lazily(() => {
  const toolList = z.union([z.string(), z.array(z.string())]);
  return z.looseObject({
    name: z.string().optional(),
    description: z.string().optional(),
    tools: toolList.nullish(),
    disallowedTools: toolList.nullish(),
    model: z.string().nullish(),
    effort: z.string().nullish(),
  });
});
type ToolList = string | string[];

/** Where agent files are looked for, the weakest first. */
function agentDirs(opts: { root: string; configDir: string }): { dir: string; project: boolean; source: string }[] {
  return [
    { dir: join(opts.configDir, "agents"), project: false, source: "yours" },
    { dir: join(opts.root, ".claude", "agents"), project: true, source: "the project's .claude/agents" },
    { dir: join(opts.root, ".agent", "agents"), project: true, source: "the project's .agent/agents" },
  ];
}

/** Every agent of a project and of the person, by name (a project's wins), sorted by name; the broken ones too, with their problems. */
export function findAgentFiles(opts: { root: string; configDir: string }): AgentFile[] {
  const found = new Map<string, AgentFile>();
  for (const { dir, project, source } of agentDirs(opts)) {
    for (const file of markdownFiles(dir)) {
      const agent = readAgentFile(file, project ? opts.root : null, source);
      found.set(agent.name, agent);
    }
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** One agent file read; what is wrong with it is in `problems`, so that the task tool and doctor can say so. */
export function readAgentFile(path: string, root: string | null, source: string): AgentFile {
  const fallback = basename(path, ".md");
  const broken = (problem: string): AgentFile => ({ name: fallback, description: "", tools: null, disallowed: [], model: null, effort: null, prompt: "", path, source, problems: [problem] });
  if (root !== null && !isInside(realPath(path), realPath(root))) return broken("it leads outside the project");
  const size = fileSize(path);
  if (size === null) return broken("it cannot be read");
  if (size > MAX_AGENT_BYTES) return broken(`it is ${size} bytes, more than the ${MAX_AGENT_BYTES / 1024} KiB an agent file may have`);
  let parsed: { meta: Record<string, unknown>; body: string };
  try {
    parsed = parseFrontmatter(readFileSync(path, "utf8"));
  } catch (error) {
    return broken(error instanceof FrontmatterError ? error.message : "it cannot be read");
  }
  const meta = frontmatter().safeParse(parsed.meta);
  if (!meta.success) {
    const issue = meta.error.issues[0];
    return broken(`its frontmatter's ${issue?.path.join(".") || "keys"}: ${issue?.message}`);
  }
  const { name = fallback, description, tools, disallowedTools, model, effort } = meta.data;
  const problems: string[] = [];
  if (!NAME.test(name)) problems.push(`its name "${name}" is not one word of letters, digits, - and _`);
  if (!description?.trim()) problems.push("it has no description (the frontmatter's `description`), which is how the model knows when to use it");
  const knownEffort = effort ? (EFFORTS as readonly string[]).includes(effort) : true;
  if (!knownEffort) problems.push(`its effort "${effort}" is not one of ${EFFORTS.join(", ")}`);
  return {
    name,
    description: description?.trim() ?? "",
    tools: toolNames(tools),
    disallowed: toolNames(disallowedTools) ?? [],
    model: model && model !== "inherit" ? model : null,
    effort: effort && knownEffort ? (effort as Effort) : null,
    prompt: parsed.body.trim(),
    path,
    source,
    problems,
  };
}

/**
 * A tool list as written (a comma list or a YAML list), each name as lembas's. null: no list (no
 * value, or an empty string); an empty YAML list (`tools: []`) is Claude Code's way to say none.
 */
function toolNames(tools: ToolList | null | undefined): string[] | null {
  if (tools === null || tools === undefined) return null;
  const names = (typeof tools === "string" ? tools.split(",") : tools).map((t) => t.trim()).filter((t) => t !== "");
  if (names.length === 0 && typeof tools === "string") return null;
  return [...new Set(names.map(lembasToolName))];
}

/** The .md files of a folder (absolute), sorted; none when it is absent or cannot be listed. */
function markdownFiles(dir: string): string[] {
  try {
    // Looked for at every step, and mostly absent: said without the exception readdir would throw.
    if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) return [];
    return readdirSync(dir)
      .filter((name) => name.endsWith(".md") && !name.startsWith("."))
      .sort()
      .map((name) => join(dir, name));
  } catch {
    return [];
  }
}

function fileSize(path: string): number | null {
  try {
    const info = statSync(path);
    return info.isFile() ? info.size : null;
  } catch {
    return null;
  }
}
