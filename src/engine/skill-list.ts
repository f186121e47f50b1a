import type { Skill } from "../project/skills.ts";

/** The most characters the skills' list takes in the system prompt (about 1,000 tokens), whatever their number. */
export const SKILLS_BUDGET = 4_000;
/** The most characters of one skill's description in the list: the `skill` tool gives the rest. */
export const SKILL_DESCRIPTION_MAX = 250;
/** A description cut shorter than this says too little: the skills after it are named only. */
const SHORTEST = 40;

const HEAD =
  "# Skills\nWhen a task matches one of these, load it with the skill tool before you start, and follow it.";

/**
 * The system prompt's section naming the skills the model may load, within SKILLS_BUDGET: each
 * description on one line, cut to SKILL_DESCRIPTION_MAX, then shorter for all alike when the list
 * would not fit, then names alone; what still does not fit is counted, and the tool names them.
 * Null when there is none.
 */
export function skillList(skills: readonly Skill[]): string | null {
  const listed = skills.filter((s) => s.forModel);
  if (listed.length === 0) return null;
  const room = SKILLS_BUDGET - HEAD.length;
  const names = listed.map((s) => `- ${s.name}`);
  const namesLength = names.reduce((sum, line) => sum + line.length + 1, 0);
  // What each description may take once every name has its line: ": " and the text.
  const each = Math.min(SKILL_DESCRIPTION_MAX, Math.floor((room - namesLength) / listed.length) - 2);
  if (each >= SHORTEST) return [HEAD, ...listed.map((s) => `- ${s.name}: ${cut(oneLine(s.description), each)}`)].join("\n");
  const lines: string[] = [];
  let used = 0;
  for (const line of names) {
    if (used + line.length + 1 > room - 80) break;
    lines.push(line);
    used += line.length + 1;
  }
  const left = listed.length - lines.length;
  if (left > 0) lines.push(`- and ${left} more: the skill tool names them all`);
  return [HEAD, ...lines].join("\n");
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}
