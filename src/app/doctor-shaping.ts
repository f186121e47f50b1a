import { existsSync } from "node:fs";
import { projectRoot } from "../engine/engine.ts";
import { projectHooks } from "../engine/project-hooks.ts";
import { findSkills } from "../project/skills.ts";
import { openDb } from "../store/db.ts";
import type { Finding } from "./doctor-finding.ts";

/**
 * What shapes the agent in a session started in `cwd` and does not read: a project's settings file
 * (.agent/settings.json, .claude/settings.json) that does not parse or whose hooks have a bad shape,
 * and a skill left out (a folder without SKILL.md, bad frontmatter, too big): one line each, naming
 * the file and what is wrong; an event lembas does not run is an ok line. The skills that load are
 * one ok line. Trust and approval are not checked here: `lembas hooks` lists them.
 */
export function checkShaping(input: { dbFile: string; configDir: string; cwd: string }): Finding[] {
  const root = projectRoot(input.cwd);
  const findings: Finding[] = [];
  // Without a database nothing is trusted yet, which changes no problem a file has.
  const db = existsSync(input.dbFile) ? openDb(input.dbFile) : openDb(":memory:");
  try {
    for (const file of projectHooks(root, db)) {
      for (const problem of file.problems) {
        // An event only Claude Code runs is no mistake in a file Claude Code reads too: said, not to fix.
        if (problem.includes(": lembas does not run ")) findings.push({ ok: true, text: `hooks: ${problem}` });
        else findings.push({ ok: false, text: `hooks: ${problem}`, todo: `fix ${file.file} (lembas hooks lists the hooks that run)` });
      }
    }
  } finally {
    db.close();
  }
  const { skills, notices } = findSkills({ root, configDir: input.configDir });
  if (skills.length > 0) findings.push({ ok: true, text: `skills: ${skills.map((s) => s.name).join(", ")}` });
  for (const notice of notices) findings.push({ ok: false, text: `skill ${notice}`, todo: "fix the skill (a folder with a SKILL.md whose frontmatter has name and description), or remove it" });
  return findings;
}
